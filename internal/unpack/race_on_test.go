//go:build race

package unpack_test

// raceEnabled is true under the race detector, which slows the crash
// tests about tenfold: they run on smaller packs there, to look for races
// rather than to enumerate every crash state of a big run again.
const raceEnabled = true
