package mask

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                    "plain",
		"tab\tand\nnewline":        "tab\tand\nnewline",
		"\x1b]0;title\x07":         "?]0;title?",
		"del\x7f cr\r":             "del? cr?",
		"\xc3\xa9 stays as it was": "\xc3\xa9 stays as it was",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"refs/heads/main":     "refs/heads/main",
		"a\tb\nc\x1b[2J\x7fd": "a?b?c?[2J?d",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"  one line  ":               "one line",
		"first\nsecond\n":            "first; second",
		"spread   out\n\n  and more": "spread out; ; and more",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
