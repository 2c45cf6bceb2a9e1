// Package transport is the root of the ways to an upstream: the Address
// git gave the helper (parsed once, with git's checks; its Scheme, with
// the default port; the safe form messages use; the form http.<url>.*
// keys are matched against), the Redactor of secrets, git's credential
// protocol (Credentials: fill, approve, reject), the failures git names in
// its own words (Describe), and the one interface every scheme's session
// implements (Transport): package stream for file, ssh and git://,
// package http for smart HTTP. Neither imports the other, and nothing here
// knows of the protocol spoken over a session (package upstream).
package transport
