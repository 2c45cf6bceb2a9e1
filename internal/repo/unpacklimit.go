package repo

// DefaultUnpackLimit is git's own default of fetch.unpackLimit and
// transfer.unpackLimit.
const DefaultUnpackLimit = 100

// UnpackLimit is fetch.unpackLimit, else transfer.unpackLimit, else git's
// default (DefaultUnpackLimit): a fetch of at least that many objects is
// kept as a pack, as git keeps it, so that a mirror holds as many files as
// git's and serves a clone as fast; smaller ones are exploded. 0 (as in
// git) keeps every pack. With cloning, it is 0 unless one of the settings
// is set: a clone keeps its pack whatever its size, as git's does.
func (c Config) UnpackLimit(cloning bool) (uint32, error) {
	for _, key := range []string{"fetch.unpackLimit", "transfer.unpackLimit"} {
		if c.Has(key) {
			v, err := c.Int(key, 0)
			if err != nil {
				return 0, err
			}
			return uint32(max(v, 0)), nil
		}
	}
	if cloning {
		return 0, nil
	}
	return DefaultUnpackLimit, nil
}
