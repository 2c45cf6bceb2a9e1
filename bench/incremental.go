package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// incremental measures a fetch of about 10, 100, 1,000 and 10,000 objects
// into a mirror of base: the first commit of the chain from which the
// fetch brings that many.
func (m *mirrorBench) incremental(base string, chain []string) error {
	fmt.Println("  incremental fetch          objects   ours s   git s   git durable s   ours/git   ours/git durable   processes/flushes/writeouts: ours  git  git durable")
	for _, want := range []int{10, 100, 1000, 10000} {
		i := sort.Search(len(chain), func(i int) bool { return m.count(base, chain[i]) >= want })
		if i == len(chain) {
			continue
		}
		n := m.count(base, chain[i])
		if err := m.setMain(chain[i]); err != nil {
			return err
		}
		med, err := m.each(func(v mirrorVariant) (float64, error) {
			dest, err := m.fresh(v)
			if err != nil {
				return 0, err
			}
			defer os.RemoveAll(dest)
			d, err := wall(m.git(v, dest, "fetch", "-q"))
			return d.Seconds(), err
		})
		if err != nil {
			return err
		}
		works, err := m.works()
		if err != nil {
			return err
		}
		fmt.Printf("  ~%-6d                   %7d   %6.3f  %6.3f   %13.3f   %8.2f×  %16.2f×   %s\n", want, n, med["ours"], med["git"], med["git durable"],
			med["ours"]/med["git"], med["ours"]/med["git durable"], works)
	}
	return nil
}

// works runs the fetch once more for each variant under strace, and
// returns what each started and flushed ("" without strace).
func (m *mirrorBench) works() (string, error) {
	var cols []string
	for _, v := range mirrorVariants {
		dest, err := m.fresh(v)
		if err != nil {
			return "", err
		}
		w, ok, err := counted(m.git(v, dest, "fetch", "-q"), m.r.work)
		os.RemoveAll(dest)
		if err != nil || !ok {
			return "", err
		}
		cols = append(cols, w.String())
	}
	return strings.Join(cols, "  "), nil
}
