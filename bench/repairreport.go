package main

import (
	"fmt"
	"strings"
)

// print writes the repair rows' medians beside their goals: the mends as
// shares of a reclone, --verify of the sound mirror beside git fsck
// --full (time and peak RSS), the lost index beside git index-pack, and
// the bytes the repository held after and during each mend, as shares of
// the sound mirror's objects.
func (t *repairTimes) print(tenObjects int) {
	rc := median(t.reclone)
	ok := func(met bool) string { return map[bool]string{true: "met", false: "NOT MET"}[met] }
	fmt.Printf("  git clone --mirror (a reclone)                 %7.2f s\n", rc)
	v, f := median(t.verify), median(t.fsck)
	vk, fk := median(t.verifyKB), median(t.fsckKB)
	fmt.Printf("  --verify of the sound mirror / git fsck --full %7.2f s / %.2f s = %.2fx (goal 0.4x: %s); peak RSS %.0f / %.0f MiB (goal <=: %s)\n",
		v, f, v/f, ok(v <= 0.4*f), vk/1024, fk/1024, ok(vk <= fk))
	ri, ip := median(t.reindex), median(t.indexPack)
	fmt.Printf("  the lost index made again / git index-pack     %7.2f s / %.2f s = %.2fx (goal 1.0x: %s)\n", ri, ip, ri/ip, ok(ri <= ip))
	for _, dc := range damageCases {
		name := dc.name
		if dc.ten {
			name = strings.Replace(name, "10,000", fmt.Sprintf("%d", tenObjects), 1)
		}
		m := median(t.mend[dc.name])
		goal := "no goal"
		if dc.goal > 0 {
			goal = fmt.Sprintf("goal %.0f%%: %s", 100*dc.goal, ok(m <= dc.goal*rc))
		}
		fmt.Printf("  %-46s %7.2f s = %.1f%% of a reclone (%s; %s); the whole --verify %.2f s; objects git reads %.2fx, all %.2fx, during %.2fx of the sound mirror's\n",
			name, m, 100*m/rc, goal, t.what[dc.name], median(t.whole[dc.name]), median(t.sees[dc.name]), median(t.all[dc.name]), median(t.peak[dc.name]))
	}
}
