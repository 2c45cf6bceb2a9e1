// Package boot says which boot of the machine is running, and since when:
// a crash (a power loss, a hard stop of a virtual machine) is always
// followed by one, so what was written before it is suspect, and what a
// process held before it (a lock file) is stale.
package boot
