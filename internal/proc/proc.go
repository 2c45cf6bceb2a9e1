// Package proc is what a command sees of its process: its standard
// streams, its environment and whether it talks to a terminal. The command
// shell fills it in; the layers below read it, so that tests can give them
// another.
package proc

import "io"

// Env is what a command sees of its process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// LookupEnv, when set, tells a variable set to "" from one not set
	// (GIT_ALLOW_PROTOCOL="" allows nothing); without it an empty value
	// counts as unset.
	LookupEnv func(string) (string, bool)
	// IsTerminal reports whether stderr is a terminal.
	IsTerminal bool
}

// Lookup is the value of key and whether it is set; without LookupEnv, an
// empty value counts as unset.
func (e Env) Lookup(key string) (string, bool) {
	if e.LookupEnv != nil {
		return e.LookupEnv(key)
	}
	v := e.Getenv(key)
	return v, v != ""
}
