package mirror

// family is the series of one kind of run of the runner — its updates, or
// its verifications — in the metrics file: one series each per mirror
// (mirrors), each mirror's last success (last), and for the run the
// mirrors that failed, those skipped, and when it finished.
type family struct {
	mirrors                         []metric
	last, failed, skipped, finished string
	unreadable                      string
}

// oneIf is 1 for true, 0 for false.
func oneIf(b bool) float64 { return map[bool]float64{true: 1, false: 0}[b] }

var updates = family{
	last: "git_durable_update_last_success_timestamp_seconds", failed: "git_durable_update_failed",
	skipped: "git_durable_update_skipped_mirrors", finished: "git_durable_run_timestamp_seconds",
	unreadable: "git_durable_update_unreadable_dirs",
	mirrors: []metric{
		{"git_durable_update_success", "1 if the last update of the mirror succeeded, 0 if it failed.", true, func(r result) (float64, bool) {
			return oneIf(r.err == nil), true
		}},
		{"git_durable_update_durable", "1 if the last update of the mirror succeeded and wrote durably: every remote fetches through durable:: with syncing on.", true, func(r result) (float64, bool) {
			return oneIf(r.err == nil && r.notDurable == ""), true
		}},
		{"git_durable_update_refused", "1 if the runner left the mirror untouched: git would not take it as the runner's user's (safe.directory), its .git leads out of the tree, or its lock file is not one.", true, func(r result) (float64, bool) {
			return oneIf(refused(r.err)), true
		}},
		{"git_durable_update_skipped", "1 if the last run skipped the mirror, which another update held; its other series are those of the update before.", false, func(r result) (float64, bool) {
			return oneIf(r.skipped), true
		}},
		{"git_durable_update_last_run_timestamp_seconds", "When the last update of the mirror began.", true, func(r result) (float64, bool) {
			return float64(r.start.Unix()), true
		}},
		{"git_durable_update_duration_seconds", "How long the last update of the mirror took.", true, func(r result) (float64, bool) {
			return r.took.Seconds(), true
		}},
		{"git_durable_update_objects_written", "Objects the last update wrote.", true, func(r result) (float64, bool) {
			return float64(r.helper.Written), r.sessions > 0
		}},
		{"git_durable_update_objects_repaired", "Broken objects the last update replaced.", true, func(r result) (float64, bool) {
			return float64(r.helper.Repaired), r.sessions > 0
		}},
		{"git_durable_update_hardware_flushes", "Device cache flushes of the last update.", true, func(r result) (float64, bool) {
			return float64(r.helper.HardwareFlush), r.sessions > 0
		}},
		{"git_durable_update_retired_files", "Files the last update set aside in the mirror's durable-quarantine/ (stale locks, a torn packed-refs, broken refs): kept, never deleted, until --quarantine-days.", true, func(r result) (float64, bool) {
			return float64(r.retired), !r.dry
		}},
		{"git_durable_update_quarantine_bytes", "Bytes the mirror's durable-quarantine/ holds after the last update.", true, func(r result) (float64, bool) {
			return float64(r.quarantined), !r.dry
		}},
	}}

// verifications are the series of --verify.
var verifications = family{
	last: "git_durable_verify_last_success_timestamp_seconds", failed: "git_durable_verify_failed",
	skipped: "git_durable_verify_skipped_mirrors", finished: "git_durable_verify_run_timestamp_seconds",
	unreadable: "git_durable_verify_unreadable_dirs",
	mirrors: []metric{
		{"git_durable_verify_success", "1 if the last verification of the mirror found nothing broken, or repaired all it found.", true, func(r result) (float64, bool) {
			return oneIf(r.err == nil), true
		}},
		{"git_durable_verify_refused", "1 if the runner left the mirror untouched (see git_durable_update_refused).", true, func(r result) (float64, bool) {
			return oneIf(refused(r.err)), true
		}},
		{"git_durable_verify_skipped", "1 if the last run skipped the mirror, which another run held; its other series are those of the verification before.", false, func(r result) (float64, bool) {
			return oneIf(r.skipped), true
		}},
		{"git_durable_verify_last_run_timestamp_seconds", "When the last verification of the mirror began.", true, func(r result) (float64, bool) {
			return float64(r.start.Unix()), true
		}},
		{"git_durable_verify_duration_seconds", "How long the last verification of the mirror took.", true, func(r result) (float64, bool) {
			return r.took.Seconds(), true
		}},
		{"git_durable_verify_objects_checked", "Objects the last verification read, packed and loose.", true, func(r result) (float64, bool) {
			return float64(r.check.Objects()), r.check != nil
		}},
		{"git_durable_verify_broken_objects", "Broken or missing objects the last verification found.", true, func(r result) (float64, bool) {
			return float64(r.check.Broken()), r.check != nil
		}},
		{"git_durable_verify_repaired_objects", "Of those, the objects it fetched again and put right.", true, func(r result) (float64, bool) {
			return float64(r.fixed), r.check != nil
		}},
		{"git_durable_verify_refetched_objects", "Objects the last verification fetched again by id from the upstream.", true, func(r result) (float64, bool) {
			return float64(r.refetched), r.check != nil
		}},
		{"git_durable_verify_refetched_whole", "1 if the last verification fetched everything again instead, as a reclone brings it (the broken copies held more than a quarter of the packs' bytes).", true, func(r result) (float64, bool) {
			return oneIf(r.whole), r.check != nil
		}},
		{"git_durable_verify_recloned", "1 if the last verification replaced the mirror with a fresh clone of its upstream, swapped in whole (--reclone, or where a mend would fetch everything), the old one set aside in its durable-quarantine/.", true, func(r result) (float64, bool) {
			return oneIf(r.swapped), r.check != nil
		}},
		{"git_durable_verify_retired_files", "Files the last verification set aside in the mirror's durable-quarantine/ (damaged packs, replaced indexes, broken loose copies, refs naming what nobody has): kept, never deleted, until --quarantine-days.", true, func(r result) (float64, bool) {
			return float64(r.retired), r.check != nil
		}},
		{"git_durable_verify_quarantine_bytes", "Bytes the mirror's durable-quarantine/ holds after the last verification.", true, func(r result) (float64, bool) {
			return float64(r.quarantined), r.check != nil
		}},
	},
}
