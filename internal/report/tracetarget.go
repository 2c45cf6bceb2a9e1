package report

import (
	"io"
	"os"
	"strings"
)

// TraceTarget reads the value of one of git's trace variables
// (GIT_TRACE_PACKET, GIT_TRACE2_EVENT) as git's trace keys read it: empty,
// 0 or false is off (on false); 1, true or 2 is stderr; another digit is
// that file descriptor (named name). Anything else is a path, which the
// caller opens or refuses as its variable does: w is nil then, on true.
func TraceTarget(target, name string, stderr io.Writer) (w io.Writer, on bool) {
	switch {
	case traceOff(target):
		return nil, false
	case target == "1" || strings.EqualFold(target, "true") || target == "2":
		return stderr, true
	case len(target) == 1 && target[0] >= '0' && target[0] <= '9':
		return os.NewFile(uintptr(target[0]-'0'), name), true
	}
	return nil, true
}

// traceOff reports whether a trace variable's value turns the trace off.
func traceOff(target string) bool {
	return target == "" || target == "0" || strings.EqualFold(target, "false")
}
