package mend

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// Git runs git in the repository a mend works in, with stdin (nil: none),
// and returns its output; a failure carries git's last line. The runner
// gives one that finds the repository as git would for its owner.
type Git func(ctx context.Context, stdin []byte, args ...string) ([]byte, error)

// Findings are what a verification found in a repository.
type Findings struct {
	*verify.Report
	// Missing are the refs whose object the repository does not have.
	Missing []RefObject
	// repo is the repository as Verify read it (its directories, format
	// and configuration), for the Mend that follows to take as it is:
	// nil where the findings were made otherwise.
	repo *repo.Repo
	// layouts are the damaged packs laid out by their indexes, once for
	// the choice of a reclone (WholeDue) and the mend (mender.layout).
	layouts map[string][]pack.Span
}

// laidOut is f's layouts of the damaged packs, made on first use.
func (f *Findings) laidOut() map[string][]pack.Span {
	if f.layouts == nil {
		f.layouts = map[string][]pack.Span{}
	}
	return f.layouts
}

// RefObject is a ref and the object it names.
type RefObject struct {
	Name string
	ID   object.ID
}

// Broken is how many objects the verification found broken or missing.
func (f *Findings) Broken() int { return len(f.Report.Broken()) + len(f.Missing) }

// Objects is how many objects the verification read.
func (f *Findings) Objects() int { return f.PackedObjects + f.LooseObjects }

// Sound reports whether the verification found nothing wrong.
func (f *Findings) Sound() bool { return f.Broken() == 0 && len(f.Damage) == 0 }

// VerifyOptions bound a verification.
type VerifyOptions struct {
	// Rate bounds the bytes read from packs a second, 0 none.
	Rate int64
	// Reserve and Progress are verify.Options'.
	Reserve  func(n int64)
	Progress func(stage string, done, total int64)
}

// Verify checks the repository that git runs in: every object, as git
// fsck --full reads it (verify.Repository), and that every ref's object is
// there.
func Verify(ctx context.Context, git Git, o VerifyOptions) (*Findings, error) {
	r, err := openRepo(ctx, git)
	if err != nil {
		return nil, err
	}
	rep, err := verify.Repository(ctx, r.ObjectDir, r.Format, verify.Options{Rate: o.Rate, Reserve: o.Reserve, Progress: o.Progress})
	if err != nil {
		return nil, err
	}
	f := &Findings{Report: rep, repo: r}
	f.Missing, err = MissingRefObjects(ctx, git)
	return f, err
}

// MissingRefObjects lists the refs of the repository whose object it does
// not have, as git cat-file reads them (a pack git refuses holds none).
func MissingRefObjects(ctx context.Context, git Git) ([]RefObject, error) {
	out, err := git(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil || len(out) == 0 {
		return nil, err
	}
	var refs []RefObject
	var ids bytes.Buffer
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		hex, name, _ := strings.Cut(l, " ")
		id, err := object.ParseID(hex)
		if err != nil {
			return nil, fmt.Errorf("ref %s: %v", name, err)
		}
		refs = append(refs, RefObject{name, id})
		ids.WriteString(hex + "\n")
	}
	check, err := git(ctx, ids.Bytes(), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var missing []RefObject
	for i, l := range strings.Split(strings.TrimSuffix(string(check), "\n"), "\n") {
		if i < len(refs) && strings.HasSuffix(l, " missing") {
			missing = append(missing, refs[i])
		}
	}
	return missing, nil
}

// openRepo reads where the repository keeps its objects, its object
// format and its configuration.
func openRepo(ctx context.Context, git Git) (*repo.Repo, error) {
	out, err := git(ctx, nil, "rev-parse", "--path-format=absolute", "--git-dir", "--git-path", "objects", "--git-common-dir", "--show-object-format")
	if err != nil {
		return nil, err
	}
	l := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(l) != 4 {
		return nil, fmt.Errorf("unexpected output of git rev-parse: %q", out)
	}
	r := &repo.Repo{GitDir: l[0], ObjectDir: l[1], CommonDir: l[2]}
	if r.Format, err = object.ParseFormat(l[3]); err != nil {
		return nil, err
	}
	r.Config, err = repo.Load(ctx, r.GitDir)
	return r, err
}
