package remote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxLine bounds a line of the dialogue; git's lines are far shorter.
const maxLine = 64 << 10

// loop answers git's commands until git ends the session. A panic in a
// decoder fed by the upstream becomes a failure like any other.
func (h *helper) loop() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	for {
		line, err := h.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case line == "":
			h.ended = true // git ended the session, its work done
			return nil
		case line == "capabilities":
			err = h.write("fetch\npush\noption\ncheck-connectivity\nobject-format\n\n")
		case strings.HasPrefix(line, "option "):
			err = h.write(h.option(strings.TrimPrefix(line, "option ")) + "\n")
		case line == "list" || line == "list for-push":
			h.snapshot()
			if h.line.Op == "" {
				h.line.Op = map[bool]string{true: "push", false: "fetch"}[line == "list for-push"]
			}
			err = h.answer(func() error { return h.list(line == "list for-push") })
		case strings.HasPrefix(line, "fetch "):
			h.snapshot()
			h.line.Op = "fetch"
			var cmds []string
			if cmds, err = h.batch(line); err == nil {
				err = h.answer(func() error { return h.fetch(cmds) })
			}
		case strings.HasPrefix(line, "push "):
			h.snapshot()
			h.line.Op = "push"
			var cmds []string
			if cmds, err = h.batch(line); err == nil {
				err = h.answer(func() error { return h.push(cmds) })
			}
		default:
			return fmt.Errorf("unknown command '%s' from git", line)
		}
		if err != nil {
			return err
		}
	}
}

// answer runs a command that was read whole, while git waits for its
// answer (see hangup).
func (h *helper) answer(run func() error) error {
	h.hup.answering(h.in.Buffered() > 0)
	defer h.hup.answered()
	return run()
}

// readLine reads one line of the dialogue, without its newline.
func (h *helper) readLine() (string, error) {
	if err := h.ctx.Err(); err != nil {
		return "", err
	}
	b, err := h.in.ReadSlice('\n')
	if err != nil && h.ctx.Err() != nil {
		return "", h.ctx.Err()
	}
	switch {
	case err == bufio.ErrBufferFull:
		return "", errors.New("a line from git is too long")
	case err == io.EOF && len(b) > 0:
		return "", errors.New("git closed the dialogue in the middle of a line")
	case err != nil:
		return "", err
	}
	return string(bytes.TrimSuffix(b[:len(b)-1], []byte("\r"))), nil
}

// batch reads the lines of a fetch or push batch that starts with first,
// up to the blank line that ends it.
func (h *helper) batch(first string) ([]string, error) {
	cmds := []string{first}
	for {
		line, err := h.readLine()
		if err == io.EOF {
			return nil, errors.New("git closed the dialogue in the middle of a batch")
		}
		if err != nil {
			return nil, err
		}
		if line == "" {
			return cmds, nil
		}
		cmds = append(cmds, line)
	}
}

// write sends a reply to git.
func (h *helper) write(s string) error {
	_, err := io.WriteString(h.out, s)
	return err
}
