package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// day measures a mirror's day: steps updates (git remote update --prune)
// along the chain, the files left under objects/, and a downstream clone
// served from the mirror by plain git.
func (m *mirrorBench) day(chain []string, steps int) error {
	steps = min(steps, len(chain))
	var stops []string
	for i := 1; i <= steps; i++ {
		stops = append(stops, chain[i*len(chain)/steps-1])
	}
	files, clones := map[string]int{}, map[string][]float64{}
	med, err := m.each(func(v mirrorVariant) (float64, error) {
		dest, err := m.fresh(v)
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dest)
		var total time.Duration
		for _, c := range stops {
			if err := m.setMain(c); err != nil {
				return 0, err
			}
			d, err := wall(m.git(v, dest, "remote", "update", "--prune"))
			if err != nil {
				return 0, err
			}
			total += d
		}
		files[v.name] = countFiles(filepath.Join(dest, "objects"))
		down := dest + "-clone"
		defer os.RemoveAll(down)
		syncAll()
		d, err := wall(exec.Command("git", "clone", "-q", "--mirror", "--no-local", dest, down))
		clones[v.name] = append(clones[v.name], d.Seconds())
		return total.Seconds(), err
	})
	if err != nil {
		return err
	}
	fmt.Printf("  a mirror's day: %d updates     ours %.2f s, git %.2f s, git durable %.2f s: %.2f× git, %.2f× git durable\n", len(stops),
		med["ours"], med["git"], med["git durable"], med["ours"]/med["git"], med["ours"]/med["git durable"])
	fmt.Printf("    files under objects/         ours %d, git %d, git durable %d: %.2f× git\n", files["ours"], files["git"], files["git durable"],
		float64(files["ours"])/float64(max(files["git"], 1)))
	c := map[string]float64{}
	for k, xs := range clones {
		c[k] = median(xs)
	}
	fmt.Printf("    a clone served from it       ours %.2f s, git %.2f s, git durable %.2f s: %.2f× git\n", c["ours"], c["git"], c["git durable"], c["ours"]/c["git"])
	return nil
}
