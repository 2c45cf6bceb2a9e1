package proc

import "testing"

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
