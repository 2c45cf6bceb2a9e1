package main

// The configurations compared; git gets the same settings as ours, through
// the same GIT_CONFIG_PARAMETERS.
var (
	cfgNone  = []string{"core.fsync=none"}
	cfgBatch = []string{"core.fsync=loose-object", "core.fsyncMethod=batch"}
	cfgFsync = []string{"core.fsync=loose-object", "core.fsyncMethod=fsync"}
)

// variants lists every command measured, in the order of the first round.
func variants() []variant {
	return []variant{
		{name: "ours none", argv: []string{"ours", "-q"}, config: cfgNone, base: "git none"},
		{name: "git none", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgNone},
		{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch, base: "git batch"},
		{name: "git batch", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgBatch},
		{name: "ours fsync", argv: []string{"ours", "-q"}, config: cfgFsync, base: "git fsync"},
		{name: "git fsync", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgFsync},
		{name: "git index-pack", git: true, argv: []string{"git", "index-pack", "--stdin"}, kept: true},
		{name: "ours keep", argv: []string{"ours", "-q", "--keep"}, base: "git index-pack", kept: true},
		{name: "ours none + sync -f", argv: []string{"ours", "-q"}, config: cfgNone, synced: true},
		{name: "floor batch", argv: []string{"floor", "-method", "batch"}, base: "ours batch"},
		{name: "floor none", argv: []string{"floor", "-method", "none"}, base: "ours none"},
		{name: "ours none tmpfs P1", argv: []string{"ours", "-q"}, config: cfgNone, env: []string{"GOMAXPROCS=1"}, tmpfs: true},
		{name: "ours none tmpfs P2", argv: []string{"ours", "-q"}, config: cfgNone, env: []string{"GOMAXPROCS=2"}, tmpfs: true, base: "ours none tmpfs P1"},
		{name: "git none tmpfs", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgNone, tmpfs: true},
	}
}
