//go:build !linux && !darwin && !windows

package batch

import (
	"errors"
	"os"
)

// writeout is not available here; callers fall back to full flushes.
func writeout(f *os.File) error { return errors.ErrUnsupported }

func fsKind(name string) string { return "" }
