package crashtest

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Call is one system call read from `strace -f -y` output. Start and End
// are the line numbers of its entry and of its completion (the same for a
// call strace printed whole).
type Call struct {
	Pid        int
	Name       string
	Args       []string // raw arguments, fd paths still in <…>
	Ret        string   // return value and error text
	Start, End int
}

// OK reports whether the call returned without error.
func (c Call) OK() bool { return !strings.HasPrefix(c.Ret, "-") && c.Ret != "?" }

var (
	lineRe    = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	callRe    = regexp.MustCompile(`^([a-z0-9_]+)\((.*)$`)
	resumedRe = regexp.MustCompile(`^<\.\.\. ([a-z0-9_]+) resumed>(.*)$`)
)

// ParseStrace reads `strace -f -y -qq` output (one line per call, or an
// `<unfinished ...>` line joined with its `<... resumed>` line per pid).
func ParseStrace(r io.Reader) ([]Call, error) {
	var calls []Call
	open := map[int]int{} // pid → index of its unfinished call
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 0; sc.Scan(); n++ {
		m := lineRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue // not a per-pid line ("+++ exited", signals)
		}
		pid, _ := strconv.Atoi(m[1])
		rest := m[2]
		if rm := resumedRe.FindStringSubmatch(rest); rm != nil {
			i, ok := open[pid]
			if !ok || calls[i].Name != rm[1] {
				return nil, fmt.Errorf("line %d: resumed %s without its start", n+1, rm[1])
			}
			delete(open, pid)
			args, ret := splitCall(calls[i].Args[0] + rm[2])
			calls[i].Args, calls[i].Ret, calls[i].End = args, ret, n
			continue
		}
		cm := callRe.FindStringSubmatch(rest)
		if cm == nil {
			continue
		}
		c := Call{Pid: pid, Name: cm[1], Start: n, End: n}
		if body, ok := strings.CutSuffix(cm[2], " <unfinished ...>"); ok {
			c.Args = []string{body}
			open[pid] = len(calls)
		} else {
			c.Args, c.Ret = splitCall(cm[2])
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for pid, i := range open {
		if calls[i].Ret == "" {
			calls[i].Ret = "?" // the process ended inside the call
			_ = pid
		}
	}
	return calls, nil
}

// splitCall splits `a, "b, c", d) = 0 <detail>` into arguments and the
// return text.
func splitCall(s string) (args []string, ret string) {
	depth, inStr, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '<' || c == '{' || c == '[' || c == '(':
			depth++
		case (c == '>' || c == '}' || c == ']') && depth > 0:
			depth--
		case c == ')' && depth > 0:
			depth--
		case c == ')' && depth == 0:
			if a := strings.TrimSpace(s[start:i]); a != "" {
				args = append(args, a)
			}
			ret = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s[i+1:]), "="))
			return args, ret
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(args, strings.TrimSpace(s[start:])), ""
}

// FdPath returns the path strace -y printed for an fd argument ("5</a/b>").
func FdPath(arg string) string {
	i := strings.IndexByte(arg, '<')
	if i < 0 || !strings.HasSuffix(arg, ">") {
		return ""
	}
	return arg[i+1 : len(arg)-1]
}

// StrArg returns the value of a quoted string argument.
func StrArg(arg string) string {
	if u, err := strconv.Unquote(arg); err == nil {
		return u
	}
	return strings.Trim(arg, `"`)
}

// cwds tracks each process's working directory, from the AT_FDCWD<…>
// annotations strace -y prints, to resolve relative paths.
type cwds map[int]string

func (m cwds) see(c Call) {
	for _, a := range c.Args {
		if strings.HasPrefix(a, "AT_FDCWD<") {
			m[c.Pid] = FdPath(a)
		}
	}
}
