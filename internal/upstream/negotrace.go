package upstream

import (
	"strconv"

	"github.com/git-durable/git-durable/internal/report"
)

// roundTrace writes a negotiation's trace2 events as fetch-pack writes
// them: a region "negotiation_v2" (or "negotiation_v0_v1") in category
// "fetch-pack", a region "round" for each round with its number, the
// haves it added and the haves in vain as data, and the rounds' total
// once the region is left.
type roundTrace struct {
	t        *report.Trace2
	category string // "negotiation_v2" or "negotiation_v0_v1"
	rounds   int
	inRegion bool
	inRound  bool
}

// begin enters the negotiation's region, once.
func (r *roundTrace) begin() {
	if !r.inRegion && r.category != "" {
		r.inRegion = true
		r.t.Enter("fetch-pack", r.category, "")
	}
}

// round enters the next round's region.
func (r *roundTrace) round() {
	r.begin()
	r.endRound()
	r.rounds++
	r.inRound = true
	r.t.Enter(r.category, "round", strconv.Itoa(r.rounds))
}

// added says what a round's request carries.
func (r *roundTrace) added(haves, inVain int) {
	r.t.Data(r.category, "haves_added", int64(haves))
	r.t.Data(r.category, "in_vain", int64(inVain))
}

// endRound leaves the round's region, if one is open.
func (r *roundTrace) endRound() {
	if r.inRound {
		r.inRound = false
		r.t.Leave(strconv.Itoa(r.rounds))
	}
}

// end leaves the regions still open, and says how many rounds there were.
func (r *roundTrace) end() {
	r.endRound()
	if r.inRegion {
		r.inRegion = false
		r.t.Leave("")
		r.t.Data(r.category, "total_rounds", int64(r.rounds))
	}
}
