package mirror

import (
	"encoding/json"
	"math"
	"path/filepath"
	"time"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/mend"
)

// maxDamage bounds the damage a verdict's statistics line lists.
const maxDamage = 1000

// writeVerdict adds the detail of the verification of the repository dir
// (f, and what the mend m did, err what it left) to the runner's
// statistics file, where it has one: every damage found (up to
// maxDamage), the refs whose object is missing, what was done, what was
// set aside and where, what is left broken.
func writeVerdict(dir string, f *mend.Findings, m mend.Mended, took time.Duration, err error) {
	to := statsTarget()
	if to == "" {
		return
	}
	type damage struct {
		ID   string `json:"id,omitempty"`
		Pack string `json:"pack,omitempty"`
		Why  string `json:"why"`
	}
	v := struct {
		Kind       string   `json:"kind"`
		Time       string   `json:"time"`
		Repository string   `json:"repository"`
		Result     string   `json:"result"`
		Error      string   `json:"error,omitempty"`
		Checked    int      `json:"checked"`
		Broken     int      `json:"broken"`
		Damage     []damage `json:"damage,omitempty"`
		Missing    []string `json:"missing-refs,omitempty"`
		Did        []string `json:"did,omitempty"`
		Whole      string   `json:"refetched-whole,omitempty"`
		Fetched    int      `json:"fetched"`
		Retired    []string `json:"retired,omitempty"`
		Quarantine string   `json:"quarantine,omitempty"`
		Left       []string `json:"left,omitempty"`
		Seconds    float64  `json:"mend-seconds"`
	}{Kind: "verify", Time: time.Now().UTC().Format(time.RFC3339), Repository: dir, Result: "ok", Seconds: math.Round(took.Seconds()*1000) / 1000,
		Checked: f.Objects(), Broken: f.Broken(), Did: m.Did, Whole: m.Whole, Fetched: m.Fetched, Retired: m.Retired}
	if !f.Sound() {
		v.Result = "mended"
	}
	if err != nil {
		v.Result, v.Error = "failed", mask.OneLine(err.Error())
	}
	for i, d := range f.Damage {
		if i == maxDamage {
			break
		}
		dd := damage{Pack: filepath.Base(d.Pack), Why: d.Why}
		if !d.ID.IsZero() {
			dd.ID = d.ID.String()
		}
		v.Damage = append(v.Damage, dd)
	}
	for _, r := range f.Missing {
		v.Missing = append(v.Missing, r.Name+" "+r.ID.String())
	}
	if len(m.Retired) > 0 {
		v.Quarantine = m.Quarantine
	}
	for _, id := range m.Left {
		v.Left = append(v.Left, id.String())
	}
	if b, err := json.Marshal(v); err == nil {
		appendTo(to, append(b, '\n'))
	}
}
