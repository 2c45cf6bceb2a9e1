package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// sweep measures a fetch with nothing new into a mirror of base holding
// about n loose objects more (the commits after base that bring them,
// unpacked by git unpack-objects): through the helper in the first session
// of a boot (it reads every loose object: its record of the boot removed),
// in a later one, and plain git's.
func (m *mirrorBench) sweep(dir, base string, n int) error {
	line, err := gitOut(m.src, "rev-list", "--first-parent", "--reverse", base+"..HEAD")
	if err != nil {
		return err
	}
	chain := strings.Fields(line)
	i := sort.Search(len(chain), func(i int) bool { return m.count(base, chain[i]) >= n })
	if i == len(chain) {
		return fmt.Errorf("the history after %s has fewer than %d objects", base, n)
	}
	tip := chain[i]
	mirror := filepath.Join(dir, fmt.Sprintf("loose-%d.git", n))
	if err := run("", nil, "cp", "-a", m.template, mirror); err != nil {
		return err
	}
	defer os.RemoveAll(mirror)
	if err := unpackRange(m.src, mirror, base, tip); err != nil {
		return err
	}
	if err := run(mirror, nil, "git", "update-ref", "refs/heads/main", tip); err != nil {
		return err
	}
	if err := m.setMain(tip); err != nil {
		return err
	}
	loose := countFiles(mirror+"/objects") - countFiles(mirror+"/objects/pack")
	kinds := []struct {
		name, url string
		boot      bool
	}{{"ours, new boot", "durable::file://" + m.up, true}, {"ours, same boot", "durable::file://" + m.up, false}, {"git", "file://" + m.up, false}}
	got := map[string][]float64{}
	for i := 0; i < m.rounds; i++ {
		for k := range kinds {
			kd := kinds[(i+k)%len(kinds)]
			if kd.boot {
				os.Remove(filepath.Join(mirror, "objects/info/durable")) // as after a crash and a boot
			}
			syncAll()
			d, err := wall(m.git(mirrorVariant{durable: true}, mirror, "fetch", "-q", kd.url, "+refs/*:refs/*"))
			if err != nil {
				return err
			}
			got[kd.name] = append(got[kd.name], d.Seconds())
		}
	}
	fmt.Printf("  fetch with nothing new, %d loose objects: ours %.3f s in the first session of a boot, %.3f s in a later one; git %.3f s (%.1f× and %.2f× git)\n",
		loose, median(got["ours, new boot"]), median(got["ours, same boot"]), median(got["git"]),
		median(got["ours, new boot"])/median(got["git"]), median(got["ours, same boot"])/median(got["git"]))
	return nil
}

// unpackRange unpacks the objects of base..tip of the repository src into
// the repository dir, loose: git pack-objects piped into git
// unpack-objects.
func unpackRange(src, dir, base, tip string) error {
	pack := exec.Command("git", "pack-objects", "-q", "--revs", "--stdout")
	pack.Dir, pack.Stdin = src, strings.NewReader(tip+"\n^"+base+"\n")
	unpack := exec.Command("git", "unpack-objects", "-q")
	unpack.Dir = dir
	pr, pw := io.Pipe()
	pack.Stdout, unpack.Stdin = pw, pr
	if err := pack.Start(); err != nil {
		return err
	}
	if err := unpack.Start(); err != nil {
		return err
	}
	perr := pack.Wait()
	pw.Close()
	if err := unpack.Wait(); err != nil || perr != nil {
		return fmt.Errorf("unpacking %s..%s: %v %v", base, tip, perr, err)
	}
	return nil
}
