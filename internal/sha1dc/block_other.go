//go:build !amd64

package sha1dc

// accelerated is false: New returns github.com/pjbgf/sha1cd's hash, which
// has its own assembly for arm64; tests run this package's compression in
// Go.
var accelerated = false

func compress(h *[5]uint32, p []byte, sc *scratch) {
	compressBlocksGo(h, p, sc)
}
