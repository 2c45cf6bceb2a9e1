// Package object holds what every other package agrees on about git objects:
// their types, their ids and the hash formats (SHA-1 with collision
// detection, SHA-256) that compute those ids from "<type> <size>\x00" + data.
package object
