//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package boot

import "time"

// ID is "" where the system does not say which boot is running.
func ID() string { return "" }

// Time is the zero time where the system does not say when it booted.
func Time() time.Time { return time.Time{} }
