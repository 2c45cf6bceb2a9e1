package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// revWalk is the negotiator's walk of the repository's commits: git
// for-each-ref lists the refs once, their values go on to git rev-list
// --parents --stdin, which walks from them newest first, and the commits
// they peel to are the tips the negotiator starts from. Both processes run
// at once; the walk is read only as far as the negotiation needs, and
// stopped there.
type revWalk struct {
	ctx              context.Context
	stop             context.CancelFunc
	refs, list       *exec.Cmd
	out              *bufio.Reader
	refsErr, listErr bytes.Buffer
	fed              chan error // the refs were read and passed on
	fedErr           error      // what came on fed, once fedDone
	fedDone          bool
	tips             []object.ID
	failed           error // where the walk could not start
	done             bool
}

// tipsFormat lists a ref's object and type, and for a tag the object and
// type it points at.
const tipsFormat = "--format=%(objectname) %(objecttype) %(*objectname) %(*objecttype)"

// startWalk starts the walk's processes.
func startWalk(ctx context.Context) *revWalk {
	ctx, stop := context.WithCancel(ctx)
	w := &revWalk{ctx: ctx, stop: stop, fed: make(chan error, 1)}
	w.refs = exec.CommandContext(ctx, "git", "for-each-ref", tipsFormat)
	w.list = exec.CommandContext(ctx, "git", "rev-list", "--parents", "--stdin")
	w.refs.Stderr, w.list.Stderr = &w.refsErr, &w.listErr
	refsOut, err := w.refs.StdoutPipe()
	var listIn io.WriteCloser
	var listOut io.ReadCloser
	if err == nil {
		listIn, err = w.list.StdinPipe()
	}
	if err == nil {
		listOut, err = w.list.StdoutPipe()
	}
	if err == nil {
		err = w.list.Start()
	}
	if err == nil {
		if err = w.refs.Start(); err != nil {
			stop()
			w.list.Wait()
		}
	}
	if err != nil {
		w.failed, w.done = fmt.Errorf("cannot run git: %w", err), true
		return w
	}
	w.out = bufio.NewReaderSize(listOut, 64<<10)
	go w.feed(refsOut, listIn)
	return w
}

// feed passes the refs' values on to rev-list, keeping the commits they
// peel to (a tag of a tag is left to rev-list to peel), and reports how
// for-each-ref ended.
func (w *revWalk) feed(from io.Reader, to io.WriteCloser) {
	sc := bufio.NewScanner(from)
	bw := bufio.NewWriterSize(to, 64<<10)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		bw.WriteString(f[0] + "\n")
		tip := ""
		switch {
		case f[1] == "commit":
			tip = f[0]
		case len(f) == 4 && f[3] == "commit":
			tip = f[2]
		}
		if id, err := object.ParseID(tip); err == nil {
			w.tips = append(w.tips, id)
		}
	}
	bw.Flush()
	to.Close()
	w.fed <- gitFailure(w.refs, w.refs.Wait(), &w.refsErr)
}

// tipsRead waits until the refs are read, and returns the commits they
// point at.
func (w *revWalk) tipsRead() ([]object.ID, error) {
	if w.failed != nil {
		return nil, w.failed
	}
	if err := w.refsRead(); err != nil {
		w.failed = err
		return nil, err
	}
	return w.tips, nil
}

// refsRead waits for for-each-ref's end, and returns how it failed.
func (w *revWalk) refsRead() error {
	if !w.fedDone {
		w.fedErr, w.fedDone = <-w.fed, true
	}
	return w.fedErr
}

// next reads the next commit of the walk and its parents; io.EOF at its
// end.
func (w *revWalk) next() (object.ID, []object.ID, error) {
	if w.done {
		return object.ID{}, nil, io.EOF
	}
	for {
		line, err := w.out.ReadString('\n')
		if err != nil {
			return object.ID{}, nil, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		id, err := object.ParseID(f[0])
		if err != nil {
			continue
		}
		parents := make([]object.ID, 0, len(f)-1)
		for _, p := range f[1:] {
			if pid, err := object.ParseID(p); err == nil {
				parents = append(parents, pid)
			}
		}
		return id, parents, nil
	}
}

// wait ends the walk that stopped with err, and returns why it failed:
// nil where it read to its end.
func (w *revWalk) wait(err error) error {
	if w.done {
		return w.failed
	}
	w.done = true
	listErr := gitFailure(w.list, w.list.Wait(), &w.listErr)
	if err := w.refsRead(); w.failed == nil {
		w.failed = err
	}
	switch {
	case w.failed != nil:
		return w.failed
	case listErr != nil:
		return listErr
	case err != io.EOF:
		return err
	}
	return nil
}

// close stops the walk where it is.
func (w *revWalk) close() {
	w.stop()
	if !w.done {
		w.wait(nil)
	}
}

// gitFailure is how a git command that ended with err failed, in git's
// words: nil where it exited with 0.
func gitFailure(cmd *exec.Cmd, err error, stderr *bytes.Buffer) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &repo.GitError{Args: cmd.Args[1:], Code: ee.ExitCode(), Stderr: stderr.String()}
	}
	return err
}
