package remote

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// update is one "push [+]<src>:<dst>" line and what became of it.
type update struct {
	src, dst string
	force    bool
	old, new plumbing.Hash // zero: create / delete
	status   string        // "" while it may still go, or why it did not
	ok       bool          // it went through (or would have: a dry run)
}

// push answers a batch of push lines: it checks each update as git's
// send-pack does, sends the pack of what the upstream lacks with the ref
// updates through receive-pack, and reports "ok <dst>" or "error <dst>
// <why>" for each, with git's reason words.
func (h *helper) push(cmds []string) error {
	rp := h.rp
	h.rp = nil
	if rp == nil {
		var err error
		if rp, err = h.openReceive(); err != nil {
			return err
		}
	}
	defer rp.sess.Close()
	ups := make([]*update, 0, len(cmds))
	for _, c := range cmds {
		u, err := h.parsePush(c, rp.refs.References)
		if err != nil {
			return err
		}
		ups = append(ups, u)
	}
	for _, u := range ups {
		if err := h.check(u, rp.refs.Capabilities); err != nil {
			return err
		}
	}
	if h.set.atomic {
		if !rp.refs.Capabilities.Supports(capability.Atomic) {
			return fmt.Errorf("the receiving end at '%s' does not support --atomic push", h.url)
		}
		failAtomic(ups)
	}
	var send []*update
	for _, u := range ups {
		if u.status == "" {
			send = append(send, u)
		}
	}
	if len(send) > 0 {
		if h.set.dryRun {
			for _, u := range send {
				u.ok = true
			}
		} else if err := h.sendPack(rp, send); err != nil {
			return err
		}
	}
	var b strings.Builder
	for _, u := range ups {
		if u.ok {
			fmt.Fprintf(&b, "ok %s\n", u.dst)
		} else {
			fmt.Fprintf(&b, "error %s %s\n", u.dst, quote(u.status))
		}
	}
	b.WriteString("\n")
	return h.write(b.String())
}

// parsePush reads one push line; the source is resolved in the local
// repository (an annotated tag stays the tag object, as git pushes it).
func (h *helper) parsePush(line string, remote map[string]plumbing.Hash) (*update, error) {
	spec := strings.TrimPrefix(line, "push ")
	u := &update{}
	if strings.HasPrefix(spec, "+") {
		u.force, spec = true, spec[1:]
	}
	src, dst, ok := strings.Cut(spec, ":")
	if !ok || dst == "" {
		return nil, fmt.Errorf("bad push command from git: '%s'", line)
	}
	u.src, u.dst, u.old = src, dst, remote[dst]
	u.force = u.force || h.set.force
	if src == "" {
		return u, nil // delete
	}
	if plumbing.IsHash(src) {
		u.new = plumbing.NewHash(src)
		return u, nil
	}
	out, err := runGit(h.ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", src)
	ids := hashes(out)
	if err != nil || len(ids) != 1 {
		return nil, fmt.Errorf("src refspec %s does not match any", src)
	}
	u.new = ids[0]
	return u, nil
}

// check decides, before anything is sent, what git's send-pack would
// refuse: stale --force-with-lease values, and without force, a tag that
// exists, an old value not here ("fetch first"), not a commit ("needs
// force") or not an ancestor of the new one ("non-fast forward").
func (h *helper) check(u *update, caps *capability.List) error {
	switch {
	case u.new.IsZero() && u.old.IsZero():
		u.status = "remote ref does not exist"
		return nil
	case u.new.IsZero() && !caps.Supports(capability.DeleteRefs):
		u.status = "remote does not support deleting refs"
		return nil
	case u.new == u.old:
		u.status = "up to date"
		return nil
	}
	if want, ok := h.set.cas[u.dst]; ok {
		if want != u.old {
			u.status = "stale info"
		}
		return nil // a lease replaces the fast-forward rule, as in git
	}
	if u.force || u.old.IsZero() || u.new.IsZero() {
		return nil
	}
	if strings.HasPrefix(u.dst, "refs/tags/") {
		u.status = "already exists"
		return nil
	}
	types, err := runGit(h.ctx, []byte(u.old.String()+"\n"+u.new.String()+"\n"), "cat-file", "--batch-check=%(objecttype)")
	if err != nil {
		return err
	}
	t := strings.Split(strings.TrimSpace(string(types)), "\n")
	switch {
	case len(t) != 2 || strings.HasSuffix(t[0], " missing"):
		u.status = "fetch first"
	case t[0] != "commit" || t[1] != "commit":
		u.status = "needs force"
	default:
		if _, err := runGit(h.ctx, nil, "merge-base", "--is-ancestor", u.old.String(), u.new.String()); err != nil {
			u.status = "non-fast forward"
		}
	}
	return nil
}

// failAtomic fails every update of an atomic push when one is refused.
func failAtomic(ups []*update) {
	refused := false
	for _, u := range ups {
		refused = refused || (u.status != "" && u.status != "up to date")
	}
	if !refused {
		return
	}
	for _, u := range ups {
		if u.status == "" {
			u.status = "atomic push failed"
		}
	}
}

// quote C-quotes a reason when it needs it, as git does.
func quote(s string) string {
	for _, c := range s {
		if c < ' ' || c == '"' || c == '\\' || c > '~' {
			return strconv.Quote(s)
		}
	}
	return s
}
