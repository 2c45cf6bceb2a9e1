//go:build !race

package unpack

// underRace is false without the race detector: see race_inner_on_test.go.
const underRace = false
