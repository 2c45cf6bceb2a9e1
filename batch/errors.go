package batch

// Step is a step of Commit.
type Step int

// The steps of Commit, in their order.
const (
	StepSync   Step = iota + 1 // the writeout or flush the path asks for
	StepClose                  // closing the written file
	StepRename                 // renaming it to its final name
)

func (s Step) String() string {
	switch s {
	case StepSync:
		return "sync"
	case StepClose:
		return "close"
	case StepRename:
		return "rename"
	}
	return "unknown step"
}

// CommitError is a failed Commit: the step, the file it failed on (the
// temporary file, or the final name for StepRename) and the system's error.
type CommitError struct {
	Step Step
	Path string
	Err  error
}

func (e *CommitError) Error() string { return e.Err.Error() }

func (e *CommitError) Unwrap() error { return e.Err }
