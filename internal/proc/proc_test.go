package proc

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	vars := map[string]string{"EMPTY": "", "SET": "x"}
	getenv := func(k string) string { return vars[k] }
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }

	with := Env{Getenv: getenv, LookupEnv: lookup}
	if v, ok := with.Lookup("EMPTY"); v != "" || !ok {
		t.Errorf("with LookupEnv, EMPTY = %q, %v; want \"\", true", v, ok)
	}
	if _, ok := with.Lookup("UNSET"); ok {
		t.Error("with LookupEnv, UNSET is set")
	}
	without := Env{Getenv: getenv}
	if _, ok := without.Lookup("EMPTY"); ok {
		t.Error("without LookupEnv, an empty value counts as set")
	}
	if v, ok := without.Lookup("SET"); v != "x" || !ok {
		t.Errorf("without LookupEnv, SET = %q, %v; want \"x\", true", v, ok)
	}
}

func TestWithoutRepoEnv(t *testing.T) {
	in := []string{"HOME=/h", "GIT_DIR=/r", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c",
		"GIT_TERMINAL_PROMPT=0", "GIT_COMMON_DIR=/c", "GIT_DIRX=kept"}
	got := strings.Join(WithoutRepoEnv(in), " ")
	if want := "HOME=/h GIT_TERMINAL_PROMPT=0 GIT_DIRX=kept"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
