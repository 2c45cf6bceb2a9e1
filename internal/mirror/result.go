package mirror

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/mend"
)

// result is how the update of one repository went.
type result struct {
	start   time.Time
	took    time.Duration
	skipped bool
	// tidied says what the update's tidying did, mended what the
	// verification's mend did (with what it found first).
	tidied, mended []string
	mendTook       time.Duration // how long a verification's mend took
	err            error
	// notDurable says why the update, though it succeeded, did not write
	// durably ("" where it did); notes are what else its line says (the
	// helper's reading of the settings, a statistics file it could not
	// write).
	notDurable string
	notes      []string
	// converted says which remotes --convert put durable:: before (or
	// would have, in a dry run).
	converted []string
	dry       bool
	// retired is how many files the run set aside in the repository's
	// quarantine, quarantined the bytes it holds once the run is over.
	retired     int
	quarantined int64
	// check is what --verify found, fixed how many objects its repair
	// put right.
	check *mend.Findings
	fixed int
	// refetched is how many objects the mend fetched again by id, whole
	// whether it fetched everything instead (a reclone's worth).
	refetched int
	whole     bool
	// swapped says that a fresh clone replaced the repository (a
	// reclone), which mended and mendTook then say.
	swapped bool
	// hold is the runner's lock in the repository a reclone swapped in,
	// held until the run of it ends (release).
	hold *os.File
	// helper adds up the helper's session lines of the update, sessions
	// counts them.
	helper   session
	sessions int
}

// maxLine is how long a runner's line may be: the repository's own paths
// in it said from the repository, then the ids and pack names shortened
// (the full ones are in the statistics file), and what is longer still
// cut; a directory's name is never cut.
const maxLine = 300

// longHex is a full object id or pack checksum.
var longHex = regexp.MustCompile(`[0-9a-f]{40}(?:[0-9a-f]{24})?`)

// line is the log line of r for the repository dir: "ok" only for an
// update that wrote durably; at most maxLine characters (cut).
func (r result) line(dir string) string {
	head := r.start.UTC().Format(time.RFC3339) + " " + quotePath(dir)
	full := r.fullLine(head)
	if len(full) <= maxLine {
		return full
	}
	// The repository's own paths are said from it: the line names it.
	tail := strings.ReplaceAll(full[len(head):], strings.TrimSuffix(dir, "/")+"/./", "")
	tail = strings.ReplaceAll(tail, strings.TrimSuffix(dir, "/")+"/", "")
	if len(head)+len(tail) <= maxLine {
		return head + tail
	}
	tail = longHex.ReplaceAllStringFunc(tail, func(h string) string { return h[:12] + "…" })
	if room := max(maxLine-len(head), 60); len(tail) > room {
		cut := room - len("…")
		for cut > 0 && !utf8.RuneStart(tail[cut]) {
			cut--
		}
		tail = tail[:cut] + "…"
	}
	return head + tail
}

// fullLine is the log line of r after head, whole.
func (r result) fullLine(head string) string {
	var notes []string
	if len(r.tidied) > 0 {
		notes = append(notes, "tidied: "+strings.Join(r.tidied, "; "))
	}
	if len(r.mended) > 0 {
		took := ""
		if r.mendTook > 0 {
			took = fmt.Sprintf(" in %.1fs", r.mendTook.Seconds()) // first: a line too long is cut
		}
		did := "mended"
		if r.swapped {
			did = "recloned"
		}
		notes = append(notes, did+took+": "+strings.Join(r.mended, "; "))
	}
	if len(r.converted) > 0 && !r.dry {
		notes = append(notes, "converted "+strings.Join(r.converted, "; "))
	}
	notes = append(notes, r.notes...)
	tail := ""
	if len(notes) > 0 {
		tail = " (" + mask.Printable(mask.OneLine(strings.Join(notes, "; "))) + ")"
	}
	switch {
	case r.dry && r.err == nil && len(r.converted) == 0:
		return head + " dry run: every remote fetches through durable::"
	case r.dry && r.err == nil:
		return head + " dry run: would convert " + mask.Printable(strings.Join(r.converted, "; "))
	case r.skipped:
		return head + " skipped: another update of it runs"
	case r.err != nil:
		return fmt.Sprintf("%s failed %.1fs: %s%s", head, r.took.Seconds(), mask.Printable(mask.OneLine(r.err.Error())), tail)
	case r.notDurable != "":
		return fmt.Sprintf("%s warning %.1fs: updated, not durable: %s%s", head, r.took.Seconds(), r.notDurable, tail)
	}
	return fmt.Sprintf("%s ok %.1fs%s", head, r.took.Seconds(), tail)
}
