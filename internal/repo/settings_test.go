package repo

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

func TestSettings(t *testing.T) {
	env := func(string) string { return "" }
	tests := []struct {
		cfg  Config
		want func(Settings) bool
		err  string
	}{
		{Config{}, func(s Settings) bool { return s.Compression == 1 && s.BigFileThreshold == 512<<20 && s.Shared == 0 }, ""},
		{Config{{Key: "core.compression", Value: "5"}}, func(s Settings) bool { return s.Compression == 5 }, ""},
		{Config{{Key: "core.loosecompression", Value: "0"}, {Key: "core.compression", Value: "5"}}, func(s Settings) bool { return s.Compression == 0 }, ""},
		{Config{{Key: "core.loosecompression", Value: "12"}}, nil, "bad zlib compression level 12"},
		{Config{{Key: "core.bigfilethreshold", Value: "2m"}}, func(s Settings) bool { return s.BigFileThreshold == 2<<20 }, ""},
		{Config{{Key: "core.bigfilethreshold", Value: "2x"}}, nil, "bad numeric config value '2x' for 'core.bigfilethreshold': invalid unit"},
		{Config{{Key: "core.sharedrepository", Value: "group"}}, func(s Settings) bool { return s.Shared == 0o660 }, ""},
		{Config{{Key: "core.sharedrepository", NoValue: true}}, func(s Settings) bool { return s.Shared == 0o660 }, ""},
		{Config{{Key: "core.sharedrepository", Value: "true"}}, func(s Settings) bool { return s.Shared == 0o660 }, ""},
		{Config{{Key: "core.sharedrepository", Value: "2"}}, func(s Settings) bool { return s.Shared == 0o664 }, ""},
		{Config{{Key: "core.sharedrepository", Value: "0640"}}, func(s Settings) bool { return s.Shared == -0o640 }, ""},
		{Config{{Key: "core.sharedrepository", Value: "0440"}}, nil, "problem with core.sharedRepository filemode value (0440)"},
		{Config{{Key: "core.sharedrepository", Value: "maybe"}}, nil, "bad boolean config value 'maybe'"},
		{Config{{Key: "core.createobject", Value: "copy"}}, nil, "invalid mode for object creation"},
		{Config{{Key: "core.fsyncobjectfiles", Value: "perhaps"}}, nil, "bad boolean config value 'perhaps' for 'core.fsyncobjectfiles'"},
	}
	for i, tt := range tests {
		s, err := tt.cfg.Settings(env)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%d: err %v, want %q", i, err, tt.err)
			}
			continue
		}
		if err != nil || !tt.want(s) {
			t.Errorf("%d: %+v %v", i, s, err)
		}
	}
	s, _ := Config{}.Settings(func(k string) string { return map[string]string{"GIT_TEST_FSYNC": "0"}[k] })
	if !s.NoFlush {
		t.Error("GIT_TEST_FSYNC=0 ignored")
	}
}

func TestLoadThroughGit(t *testing.T) {
	gittest.Need(t)
	env := sealed(t)
	dir := gittest.Init(t, env, false, "")
	gittest.Git(t, env, dir, "config", "core.fsyncMethod", "writeout-only")
	gittest.Git(t, env, dir, "config", "--add", "remote.o.fetch", "a")
	gittest.Git(t, env, dir, "config", "--add", "remote.o.fetch", "b")
	gittest.WriteFile(t, dir, ".git/config", readFile(t, dir+"/.git/config")+"[test]\n\tflag\n")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.compression'='7'")
	c, err := Load(context.Background(), dir+"/.git")
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := c.Get("core.fsyncMethod"); e.Value != "writeout-only" || e.Scope != "local" {
		t.Errorf("fsyncmethod %+v, want writeout-only from the local scope", e)
	}
	if v, _ := c.Int("core.compression", 0); v != 7 {
		t.Errorf("-c value not seen: %d", v)
	}
	if e, _ := c.Get("core.compression"); e.Scope != "command" {
		t.Errorf("-c value %+v, want the command scope", e)
	}
	if got := c.All("remote.o.fetch"); strings.Join(got, ",") != "a,b" {
		t.Errorf("multi-valued %v", got)
	}
	if b, err := c.Bool("test.flag", false); !b || err != nil {
		t.Errorf("no-value bool %v %v", b, err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
