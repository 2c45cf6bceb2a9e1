package fsck

import "math"

// checkIdent checks the ident (name, email, date, zone) of an author,
// committer or tagger line starting at p, as git 2.39's fsck_ident does.
// It returns where the next line starts and whether an error was reported.
func checkIdent(r *reporter, b cbuf, p int) (next int, failed bool) {
	next = p
	for b.at(next) != '\n' && b.at(next) != 0 {
		next++
	}
	if b.at(next) == '\n' {
		next++
	}
	const pre = "invalid author/committer line - "
	if b.at(p) == '<' {
		return next, r.report(msgMissingNameBeforeEmail, pre+"missing space before email")
	}
	p = b.skipUntilAny(p, "<>\n")
	if b.at(p) == '>' {
		return next, r.report(msgBadName, pre+"bad name")
	}
	if b.at(p) != '<' {
		return next, r.report(msgMissingEmail, pre+"missing email")
	}
	if b.at(p-1) != ' ' {
		return next, r.report(msgMissingSpaceBeforeEmail, pre+"missing space before email")
	}
	p = b.skipUntilAny(p+1, "<>\n")
	if b.at(p) != '>' {
		return next, r.report(msgBadEmail, pre+"bad email")
	}
	p++
	if b.at(p) != ' ' {
		return next, r.report(msgMissingSpaceBeforeDate, pre+"missing space before date")
	}
	p++
	if b.at(p) == '0' && b.at(p+1) != ' ' {
		return next, r.report(msgZeroPaddedDate, pre+"zero-padded date")
	}
	// git's date_overflows: the value must fit a signed 64-bit time_t.
	if v, end, overflow := b.strtoumax(p); overflow || v > math.MaxInt64 {
		return next, r.report(msgBadDateOverflow, pre+"date causes integer overflow")
	} else if end == p || b.at(end) != ' ' {
		return next, r.report(msgBadDate, pre+"bad date")
	} else {
		p = end + 1
	}
	if c := b.at(p); (c != '+' && c != '-') || !isDigit(b.at(p+1)) || !isDigit(b.at(p+2)) ||
		!isDigit(b.at(p+3)) || !isDigit(b.at(p+4)) || b.at(p+5) != '\n' {
		return next, r.report(msgBadTimezone, pre+"bad time zone")
	}
	return next, false
}
