package main

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"
)

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// stats are the medians of one variant's samples. inflated and patched
// are per object, and with reread (MiB) they are known for ours only (0
// otherwise): the work is the same in every run of one pack, unless the
// cache's contents depend on the timing of the workers.
type stats struct {
	wall, lo, hi, cpu, rss, wo, hf float64
	inflated, patched, reread      float64
}

func summarize(ss []sample) stats {
	var wall, cpu, rss, wo, hf, inf, pat, rr []float64
	for _, s := range ss {
		wall = append(wall, s.wall.Seconds())
		cpu = append(cpu, s.cpu.Seconds())
		rss = append(rss, float64(s.rssKB)/1024)
		wo = append(wo, float64(s.writeouts))
		hf = append(hf, float64(s.flushes))
		if n := float64(s.work.Objects); n > 0 {
			inf = append(inf, float64(s.work.Inflated)/n)
			pat = append(pat, float64(s.work.Patched)/n)
			rr = append(rr, float64(s.work.Reread)/(1<<20))
		}
	}
	sort.Float64s(wall)
	st := stats{wall: median(wall), lo: wall[0], hi: wall[len(wall)-1], cpu: median(cpu), rss: median(rss), wo: median(wo), hf: median(hf)}
	if len(inf) > 0 {
		st.inflated, st.patched, st.reread = median(inf), median(pat), median(rr)
	}
	return st
}

// table prints one row per variant, with its ratio to its base.
func table(w io.Writer, vs []variant, st map[string]stats) {
	fmt.Fprintf(w, "| variant | wall s (median) | min–max | ratio | CPU s | max RSS MiB | writeout-only | hardware-flush | inflates/object | patches/object | re-read MiB |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range vs {
		s := st[v.name]
		rel := ""
		if r, ok := ratio(st, v.name, v.base); ok {
			rel = fmt.Sprintf("%.2f× %s", r, v.base)
		}
		work := "  |  | "
		if s.inflated > 0 {
			work = fmt.Sprintf(" %.3f | %.3f | %.1f", s.inflated, s.patched, s.reread)
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f–%.2f | %s | %.2f | %.0f | %.0f | %.0f |%s |\n", v.name, s.wall, s.lo, s.hi, rel, s.cpu, s.rss, s.wo, s.hf, work)
	}
}

// report prints the table and the targets of the issue.
func report(w io.Writer, vs []variant, res map[string][]sample, objects int, largest int64, sys map[string]float64, big []sample, bigMB int) {
	st := map[string]stats{}
	for _, v := range vs {
		st[v.name] = summarize(res[v.name])
	}
	fmt.Fprintf(w, "\n%d objects; %d rounds, order rotated every round; %d CPUs, %s/%s, %s\n\n", objects, len(res[vs[0].name]), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().Format("2006-01-02"))
	table(w, vs, st)
	if len(sys) > 0 {
		fmt.Fprintf(w, "\nsystem calls per object (strace -c -f, batch): ours %.2f, git %.2f\n", sys["ours batch"], sys["git batch"])
	}
	var bigOurs, bigGit []sample
	for i, s := range big {
		if i%2 == 0 {
			bigOurs = append(bigOurs, s)
		} else {
			bigGit = append(bigGit, s)
		}
	}
	if len(big) > 0 {
		o, g := summarize(bigOurs), summarize(bigGit)
		fmt.Fprintf(w, "one %d MB blob (batch): ours %.2f s, %.0f MiB RSS; git %.2f s, %.0f MiB RSS\n", bigMB, o.wall, o.rss, g.wall, g.rss)
	}
	fmt.Fprintf(w, "\ntargets:\n")
	check := func(name string, ok bool, detail string) {
		mark := "met"
		if !ok {
			mark = "NOT met"
		}
		fmt.Fprintf(w, "- %s: %s (%s)\n", name, mark, detail)
	}
	r1 := st["ours none"].wall / st["git none"].wall
	check("ours none ≤ 0.5× git none", r1 <= 0.5, fmt.Sprintf("%.2f×", r1))
	r2 := st["ours batch"].wall / st["ours none"].wall
	check("ours batch ≤ 1.25× ours none", r2 <= 1.25, fmt.Sprintf("%.2f×", r2))
	r5 := st["ours batch"].wall / st["ours none + sync -f"].wall
	check("ours batch ≤ 1.25× the floor (ours none + sync -f; issue 11)", r5 <= 1.25, fmt.Sprintf("%.2f×", r5))
	r3 := st["ours batch"].wall / st["git batch"].wall
	check("ours batch ≤ 0.4× git batch", r3 <= 0.4, fmt.Sprintf("%.2f×", r3))
	r4 := st["ours keep"].wall / st["git index-pack"].wall
	check("ours keep ≤ 1.2× git index-pack --stdin", r4 <= 1.2, fmt.Sprintf("%.2f×", r4))
	if n, ok := sys["ours batch"]; ok {
		check("≤ 6 system calls per object in batch mode", n <= 6, fmt.Sprintf("%.2f", n))
	}
	limit := 64 + float64(largest)/(1<<20)
	check("peak RSS ≤ 64 MiB + largest object", st["ours batch"].rss <= limit, fmt.Sprintf("%.0f MiB ≤ %.0f MiB", st["ours batch"].rss, limit))
	if len(big) > 0 {
		o := summarize(bigOurs)
		check(fmt.Sprintf("peak RSS ≤ 64 MiB + the %d MB blob", bigMB), o.rss <= 64+float64(bigMB<<20)/(1<<20), fmt.Sprintf("%.0f MiB", o.rss))
	}
	sp := st["ours none tmpfs P1"].wall / st["ours none tmpfs P2"].wall
	check("GOMAXPROCS=2 ≥ 1.7× GOMAXPROCS=1 (tmpfs: CPU-bound)", sp >= 1.7, fmt.Sprintf("%.2f×", sp))
	fmt.Fprintln(w, strings.Repeat("-", 3))
}
