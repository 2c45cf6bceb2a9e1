package remote

import (
	"bufio"
	"fmt"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/object"
)

// list answers "list" and "list for-push" with the upstream's refs, after
// ":object-format <name>" of the upstream's ids when git asked for it. The
// upload-pack session stays open for the first fetch batch, the
// receive-pack session for the push. Refs of an upload-pack are written as
// they are read, in the upstream's order; receive-pack's, which the push
// keeps in a map, are written sorted.
func (h *helper) list(forPush bool) error {
	w := bufio.NewWriterSize(h.out, 64<<10)
	if forPush {
		if h.rp != nil {
			h.rp.Close()
		}
		rp, err := h.remote.OpenReceive()
		if err != nil {
			return err
		}
		h.rp = rp
		if !h.remote.HTTP() {
			if err := h.checkPushFormat(rp); err != nil {
				return err
			}
		}
		if h.set.objectFormat {
			fmt.Fprintf(w, ":object-format %s\n", rp.Format())
		}
		writeRefs(w, rp.Advertisement(), false, h.funnyRef)
	} else {
		if h.up != nil {
			h.up.Close()
		}
		lw := &listWriter{w: w, funny: h.funnyRef, formats: h.set.objectFormat, tips: map[object.ID]advertisedTip{}}
		up, err := h.remote.OpenUpload(lw)
		if err != nil {
			return err
		}
		h.up, h.advertised = up, lw.tips
		if up != nil {
			lw.end()
			h.sweep(up)
		}
		lw.Format(object.SHA1) // an empty upstream's advertisement named none
	}
	w.WriteString("\n")
	return w.Flush()
}

// funnyRef warns of a ref name the upstream advertised that the helper does
// not pass on to git.
func (h *helper) funnyRef(name string) {
	fmt.Fprintf(h.errw, "warning: ignoring funny ref '%s' from '%s'\n", mask.Name(name), h.url)
}
