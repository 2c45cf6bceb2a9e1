//go:build race

package unpack

// underRace is raceEnabled for the package's internal tests: under the
// race detector (about tenfold slower) the big matrices run the variants
// that race — two workers, fewer deltas past the reader's lead — rather
// than every one again.
const underRace = true
