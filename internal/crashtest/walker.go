package crashtest

// walker holds one crash state and moves it forward one event at a time.
// The metadata kept at commit point c is the program's namespace after c
// events, so the walk applies each event once; what changes is only the
// validity of the names an event touched, which it re-checks.
type walker struct {
	t       *resolved
	model   Model
	content func(string) ([]byte, error)

	names   map[string]int          // path → inode, after the kept metadata
	byIno   map[int]map[string]bool // inode → its object names
	written map[int]int64           // bytes written so far, per inode
	durable map[int]int64           // bytes durable, per inode that had a writeout
	final   map[int][]byte          // content read after the run, per inode
	checked map[[3]int64]string     // (inode, durable bytes, format) → object id or "!reason"

	exempt  map[string]bool   // broken before the run and not touched since
	bad     map[string]string // object names breaking I-b → why
	expect  map[string]bool
	missing map[string]string // expected names absent or broken → why

	// M_A: the writeouts that wait for a cache flush (inode → bytes), and
	// whether durable holds the run's final flushed data instead (the I-a
	// walk), which no event then changes.
	pending map[int]int64
	frozen  bool

	// M_P: when each name was bound and each directory made and fsynced.
	boundAt   map[string]int
	madeAt    map[string]int
	flushedAt map[string]int
	syncfsAt  int
}

func newWalker(t *resolved, opts Options) *walker {
	w := &walker{t: t, model: opts.Model, content: opts.Content,
		names: map[string]int{}, byIno: map[int]map[string]bool{}, written: map[int]int64{},
		durable: map[int]int64{}, final: map[int][]byte{}, checked: map[[3]int64]string{},
		exempt: map[string]bool{}, bad: map[string]string{}, expect: map[string]bool{}, missing: map[string]string{},
		pending: map[int]int64{}, boundAt: map[string]int{}, madeAt: map[string]int{}, flushedAt: map[string]int{}, syncfsAt: -1}
	for _, s := range t.initial {
		w.apply(-1, s)
	}
	for _, ino := range w.names {
		w.durable[ino] = w.written[ino]
	}
	clear(w.pending)
	for p := range w.names {
		if w.update(p); w.bad[p] != "" {
			delete(w.bad, p)
			w.exempt[p] = true
		}
	}
	for _, p := range opts.Expect {
		w.expect[p] = true
		w.update(p)
	}
	return w
}

// apply applies step i (-1 for the initial state).
func (w *walker) apply(i int, s step) {
	switch s.Op {
	case Create:
		w.bind(i, s.Path, s.ino)
	case Mkdir:
		w.madeAt[s.Path] = i
	case Write:
		w.written[s.ino] += s.Len
	case Writeout:
		switch w.model {
		case MJ:
			w.writeout(s.ino)
		case MA:
			w.pending[s.ino] = w.written[s.ino]
		}
	case Flush:
		switch {
		case s.dir:
			w.flushedAt[s.Path] = i
		case w.model == MA:
			w.pending[s.ino] = w.written[s.ino]
			w.cacheFlush()
		default:
			w.writeout(s.ino)
		}
	case Syncfs:
		w.syncfsAt = i
		for ino := range w.written {
			w.writeout(ino)
		}
		clear(w.pending)
	case Rename, Link:
		w.bind(i, s.Path2, s.ino)
		if s.Op == Rename {
			w.unbind(s.Path)
		}
	case Remove:
		w.unbind(s.Path)
	}
}

func (w *walker) bind(i int, p string, ino int) {
	w.unbind(p)
	w.names[p], w.boundAt[p] = ino, i
	if tracked(p) {
		if w.byIno[ino] == nil {
			w.byIno[ino] = map[string]bool{}
		}
		w.byIno[ino][p] = true
		w.update(p)
	}
}

func (w *walker) unbind(p string) {
	ino, ok := w.names[p]
	if !ok {
		return
	}
	delete(w.names, p)
	delete(w.byIno[ino], p)
	delete(w.exempt, p)
	w.update(p)
}

// writeout makes an inode's data durable as written so far.
func (w *walker) writeout(ino int) { w.makeDurable(ino, w.written[ino]) }

// makeDurable makes the first n bytes of an inode's data durable.
func (w *walker) makeDurable(ino int, n int64) {
	if d, ok := w.durable[ino]; w.frozen || ok && d == n {
		return
	}
	w.durable[ino] = n
	for p := range w.byIno[ino] {
		w.update(p)
	}
}

// cacheFlush makes every pending writeout durable (M_A).
func (w *walker) cacheFlush() {
	for ino, n := range w.pending {
		w.makeDurable(ino, n)
	}
	clear(w.pending)
}

// fixed makes durable the data given per inode, for the rest of the walk.
func (w *walker) fixed(data map[int]int64) {
	for ino, n := range data {
		w.makeDurable(ino, n)
	}
	w.frozen = true
}

// flushedData returns, per inode, the data that the cache flushes of the
// whole run made durable under M_A: as of its last writeout before the
// last flush (an fsync of a file, or syncfs) that followed it.
func flushedData(t *resolved) map[int]int64 {
	written, pending, durable := map[int]int64{}, map[int]int64{}, map[int]int64{}
	for _, s := range t.initial {
		if s.Op == Write {
			written[s.ino] += s.Len
		}
	}
	flush := func() {
		for ino, n := range pending {
			durable[ino] = n
		}
		clear(pending)
	}
	for _, s := range t.steps {
		switch {
		case s.Op == Write:
			written[s.ino] += s.Len
		case s.Op == Writeout, s.Op == Flush && !s.dir:
			pending[s.ino] = written[s.ino]
			if s.Op == Flush {
				flush()
			}
		case s.Op == Syncfs:
			for ino, n := range written {
				pending[ino] = n
			}
			flush()
		}
	}
	return durable
}

// read returns what the crash state holds under the name p: the durable
// part of its inode's data (nothing where none was written out), and
// whether the name is there.
func (w *walker) read(p string) ([]byte, bool) {
	ino, ok := w.names[p]
	if !ok {
		return nil, false
	}
	d := w.durable[ino]
	b := w.data(ino)
	if d > int64(len(b)) {
		d = int64(len(b))
	}
	return b[:d], true
}
