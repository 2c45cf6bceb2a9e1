package target

import "testing"

func TestCounterEvents(t *testing.T) {
	for v, want := range map[string]bool{
		"git version 2.39.5":               false,
		"git version 2.41.0.windows.1":     false,
		"git version 2.42.0":               true,
		"git version 2.50.1 (Apple Git-1)": true,
		"git version 3.0.0":                true,
		"":                                 true,
		"git version x.y":                  true,
	} {
		if got := counterEvents(v); got != want {
			t.Errorf("counterEvents(%q) = %v, want %v", v, got, want)
		}
	}
}
