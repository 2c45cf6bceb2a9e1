// Package urlmatch is git's matching of a URL against the URLs of
// configuration keys (urlmatch.c, for http.<url>.*): both normalized as
// git normalizes them, then compared part by part, the most specific
// match winning. It imports nothing of the project: the caller says which
// port a scheme implies.
package urlmatch
