package upstream

import (
	"net/url"
	"strings"
)

// promisorRefused says, once a session, that the promisor remotes a
// protocol v2 server advertises ("promisor-remote", git 2.49's
// promisor.advertise) are not taken, where the configuration would have
// git take some (promisor.acceptFromServer other than "none"): the
// helper asks the upstream for every object, as git does when it accepts
// none, and does not write the remotes into the configuration as git
// does. With git's default ("none") nothing is said: git says nothing
// either.
func (r *Remote) promisorRefused(a *v2) {
	if r.promisorSaid || !a.caps.Supports("promisor-remote") || r.o.Config == nil {
		return
	}
	r.promisorSaid = true
	cfg, err := r.o.Config()
	if err != nil {
		return
	}
	e, ok := cfg.Get("promisor.acceptfromserver")
	if !ok || strings.EqualFold(e.Value, "none") {
		return
	}
	var names []string
	for _, info := range a.caps.Get("promisor-remote") {
		for _, remote := range strings.Split(info, ";") {
			for _, field := range strings.Split(remote, ",") {
				if v, ok := strings.CutPrefix(field, "name="); ok {
					if n, err := url.PathUnescape(v); err == nil {
						v = n
					}
					names = append(names, "'"+v+"'")
				}
			}
		}
	}
	r.warn("durable: the promisor remotes " + strings.Join(names, ", ") + " that '" + r.URL + "' advertises are not accepted through durable:: (promisor.acceptFromServer=" +
		e.Value + "): every object comes from '" + r.URL + "'")
}
