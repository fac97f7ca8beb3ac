package checker

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Hash compaction (Options.HashCompact).
//
// The visited set keeps a 64-bit fingerprint per state (fpSet) and a
// trace record per state (records: parent index and successor ordinal),
// indexed by a global state index that is the state's position in BFS
// order (level by level, each level in key order), so it is the same for
// every worker count. Full vectors are kept only for the level being
// expanded (explorer.curVecs, in frontier order) and the level being
// built (explorer.store, a Store emptied at every level): a successor whose fingerprint is in the
// fingerprint set is a state of an earlier level (or collides with one and
// is lost); otherwise it is inserted, exactly, into the level store, which
// keeps its smallest key as in the full mode. When a level is complete its
// states get their global indexes and records, and their fingerprints join
// the set.
//
// A trace is rebuilt from the records: the parent indexes lead back to an
// initial state, and the ordinals say which successor (in the order the
// search generated them, ample sets included) each step took; replaying
// them from the init block gives the stored (canonical) states of the
// path, and the common replay then turns those into the concrete trace of
// the full mode. (Keys cap ordinals at 2^24-1, so a trace through a state
// with more successors than that cannot be rebuilt; the replay then fails
// with an internal error.)

const (
	fpSlack     = 64 // table slots past the last home position
	noParent32  = math.MaxUint32
	ordEscape   = math.MaxUint8 // record ordinal: look it up in records.big
	fpInitSlots = 64
	// fpSmallShard is the shard size below which a table grows to load
	// 0.5 rather than 0.75.
	fpSmallShard = 1 << 9
	// compactGCPercent is GOGC during a hash-compacted search: the heap
	// is pointer-free tables, cheap to mark, and its growth is the
	// tables' own, so frequent collections keep the peak near the live
	// size instead of twice it.
	compactGCPercent = 5
)

// fpSet is a set of 64-bit fingerprints, split into shards by their top
// bits. Each shard is an ordered linear-probing table: a fingerprint's home
// slot is monotone in its bits (multiply-shift of bits 24..55 onto the
// table size, which need not be a power of two), and every run of occupied
// slots is sorted, so a lookup stops at the first slot holding a larger
// fingerprint or none: present or absent, it reads about as many slots as a
// successful lookup in a plain table. That allows loads up to 0.9 (8.9-10.7
// bytes per fingerprint). Zero marks an empty slot; fingerprint 0 is stored
// as 1.
//
// Lookups (has) are safe for concurrent use while no insert runs; the
// explorer inserts between levels only, one goroutine per shard.
type fpSet struct {
	shards [nShards]fpShard
	bytes  atomic.Int64
	dups   atomic.Int64 // inserts of a fingerprint already present
}

type fpShard struct {
	tab  []uint64 // size + fpSlack slots
	size int      // number of home positions
	n    int
	_    [cacheLine - 24 - 16]byte
}

// newFPSet returns an empty set; a shard's table is allocated by its
// first insert.
func newFPSet() *fpSet { return &fpSet{} }

// fingerprint maps a vector hash to the fingerprint stored (0 is the empty
// slot).
func fingerprint(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

func fpHome(fp uint64, size int) int {
	return int((fp << shardBits >> 32) * uint64(size) >> 32)
}

// has reports whether fp is in the set.
func (s *fpSet) has(fp uint64) bool {
	sh := &s.shards[fp>>(64-shardBits)]
	tab := sh.tab
	for i := fpHome(fp, sh.size); i < len(tab); i++ {
		e := tab[i]
		if e == 0 {
			return false
		}
		if e >= fp {
			return e == fp
		}
	}
	return false
}

// touch loads fp's home slot so that a following has finds it in cache.
func (s *fpSet) touch(fp uint64) uint64 {
	sh := &s.shards[fp>>(64-shardBits)]
	if sh.tab == nil {
		return 0
	}
	return sh.tab[fpHome(fp, sh.size)]
}

// Len returns the number of distinct fingerprints stored.
func (s *fpSet) Len() int64 {
	var n int64
	for i := range s.shards {
		n += int64(s.shards[i].n)
	}
	return n
}

// insertShard adds fps (all of shard i) to the set; the caller is the
// only goroutine using shard i.
func (s *fpSet) insertShard(i int, fps []uint64) {
	sh := &s.shards[i]
	if need := sh.n + len(fps); need*10 > sh.size*9 {
		size := need * 4 / 3 // load 0.75
		if need < fpSmallShard {
			size = 2 * need // fewer rebuilds while the tables are small
		}
		s.rebuild(sh, max(size, fpInitSlots))
	}
	for _, fp := range fps {
		for {
			added, ok := sh.insert(fp)
			if ok {
				if !added {
					s.dups.Add(1)
				}
				break
			}
			s.rebuild(sh, sh.size+sh.size/8+fpInitSlots) // the last run hit the end
		}
	}
}

// insert adds fp, keeping runs sorted; ok is false when the table's slack
// is too short for it.
func (sh *fpShard) insert(fp uint64) (added, ok bool) {
	tab := sh.tab
	i := fpHome(fp, sh.size)
	for ; i < len(tab); i++ {
		e := tab[i]
		if e == 0 {
			tab[i] = fp
			sh.n++
			return true, true
		}
		if e == fp {
			return false, true
		}
		if e > fp {
			break
		}
	}
	j := i
	for j < len(tab) && tab[j] != 0 {
		j++
	}
	if j == len(tab) {
		return false, false
	}
	copy(tab[i+1:j+1], tab[i:j])
	tab[i] = fp
	sh.n++
	return true, true
}

// rebuild moves a shard into a table of size home positions. The old
// table is sorted as a whole, so each entry goes to its new home or right
// after the previous one.
func (s *fpSet) rebuild(sh *fpShard, size int) {
	for {
		tab := make([]uint64, size+fpSlack)
		last, ok := -1, true
		for _, e := range sh.tab {
			if e == 0 {
				continue
			}
			i := max(fpHome(e, size), last+1)
			if i >= len(tab) {
				ok = false
				break
			}
			tab[i] = e
			last = i
		}
		if ok {
			s.bytes.Add(int64(8 * (len(tab) - len(sh.tab))))
			sh.tab, sh.size = tab, size
			return
		}
		size += size/8 + fpInitSlots
	}
}

// records holds the trace record of every state by global index: its
// parent's index (noParent32 for an initial state) and the ordinal of the
// successor (or init branch) that first reached it, one byte with an
// escape to a map for the rare ordinals >= 255.
type records struct {
	par [][]uint32
	ord [][]uint8
	mu  sync.Mutex
	big map[uint32]uint32
}

// reserve makes room for indexes below n; not concurrent with set.
func (r *records) reserve(n int64) {
	for int64(len(r.par))<<chunkShift < n {
		r.par = append(r.par, make([]uint32, chunkStates))
		r.ord = append(r.ord, make([]uint8, chunkStates))
	}
}

// set writes the record of state g; safe for concurrent use on distinct g.
func (r *records) set(g, parent uint32, ord uint64) {
	c, o := g>>chunkShift, g&(chunkStates-1)
	r.par[c][o] = parent
	if ord < ordEscape {
		r.ord[c][o] = uint8(ord)
		return
	}
	r.ord[c][o] = ordEscape
	r.mu.Lock()
	if r.big == nil {
		r.big = map[uint32]uint32{}
	}
	r.big[g] = uint32(ord)
	r.mu.Unlock()
}

func (r *records) get(g uint32) (parent, ord uint32) {
	c, o := g>>chunkShift, g&(chunkStates-1)
	parent, ord = r.par[c][o], uint32(r.ord[c][o])
	if ord == ordEscape {
		ord = r.big[g]
	}
	return parent, ord
}

// bytes returns the memory of n records: 5 bytes each plus the escapes.
func (r *records) bytes(n int64) int64 {
	return 5*n + int64(len(r.big))*16
}

// promote makes the level just built (nn states) the current level: they
// have their records, and take the global indexes e.promoted.. in key
// order; their vectors (e.nextVecs, in that order) become the frontier's
// and their fingerprints join the set; the level store is emptied.
func (e *explorer) promote(nn int) {
	nw := e.prog.lay.words
	vecs := e.nextVecs
	fp := func(j int) uint64 { return fingerprint(hashWords(vecs[j*nw : (j+1)*nw])) }
	var cnt [nShards + 1]int
	for j := range nn {
		cnt[fp(j)>>(64-shardBits)+1]++
	}
	for i := 1; i <= nShards; i++ {
		cnt[i] += cnt[i-1]
	}
	e.fpSorted = slices.Grow(e.fpSorted[:0], nn)[:nn]
	grouped := e.fpSorted
	fill := cnt
	for j := range nn {
		f := fp(j)
		sh := f >> (64 - shardBits)
		grouped[fill[sh]] = f
		fill[sh]++
	}
	e.parallelFor(nShards, func(i int) {
		if cnt[i+1] > cnt[i] {
			e.fps.insertShard(i, grouped[cnt[i]:cnt[i+1]])
		}
	})
	e.base = e.promoted.Load()
	e.curVecs, e.nextVecs = e.nextVecs, e.curVecs
	e.store.reset()
	e.promoted.Add(int64(nn))
}

// promoteInit promotes the initial states, stored in e.store with their
// init ordinal as link, in frontier order.
func (e *explorer) promoteInit() {
	n := len(e.frontier)
	nw := e.prog.lay.words
	e.recs.reserve(int64(n))
	e.nextVecs = slices.Grow(e.nextVecs[:0], n*nw)[:n*nw]
	for j, idx := range e.frontier {
		e.recs.set(uint32(j), noParent32, *e.store.Link(idx))
		copy(e.nextVecs[j*nw:], e.store.Vector(idx))
	}
	e.initDone = true
	e.promote(n)
}

// frontierVector returns the packed state at frontier position p.
func (e *explorer) frontierVector(p int) []uint64 {
	if e.fps == nil {
		return e.store.Vector(e.frontier[p])
	}
	nw := e.prog.lay.words
	return e.curVecs[p*nw : (p+1)*nw : (p+1)*nw]
}

// compactTargets returns the stored (canonical) states of the path to a
// violation candidate, from its records.
func (e *explorer) compactTargets(c cand) [][]uint64 {
	var ords []uint32
	var last []uint64
	if c.atState && c.kind != Deadlock {
		// A new state of the level being built, in e.store.
		key := atomic.LoadUint64(e.store.Link(c.state))
		last = e.store.Vector(c.state)
		if !e.initDone {
			ords = []uint32{uint32(key)}
		} else {
			ords = append(e.lineage(uint32(e.base+int64(key>>ordBits))), uint32(key&ordMax))
		}
	} else {
		// A state of the level being expanded, at frontier position key>>ordBits.
		pos := c.key >> ordBits
		last = e.frontierVector(int(pos))
		ords = e.lineage(uint32(e.base + int64(pos)))
	}
	t := e.replayOrdinals(ords)
	if !equalWords(t[len(t)-1], last) {
		panic("wrapcheck internal error: compact trace replay reached another state")
	}
	return t
}

// lineage returns the ordinals of the path to global state g, from its
// initial state's init ordinal on.
func (e *explorer) lineage(g uint32) []uint32 {
	var ords []uint32
	for g != noParent32 {
		p, o := e.recs.get(g)
		ords = append(ords, o)
		g = p
	}
	slices.Reverse(ords)
	return ords
}

// replayOrdinals re-runs the search's steps: the init branch ords[0], then
// from each stored state the successor ords[i] in the order the search
// generated them (the ample set first under Options.Ample). It returns the
// stored, canonical, packed states.
func (e *explorer) replayOrdinals(ords []uint32) [][]uint64 {
	p := e.prog
	m := p.NewMachine()
	n := p.n
	var got []uint64
	want := int(ords[0])
	m.leaf = func(m *Machine) {
		if got != nil || m.ord != want {
			return
		}
		cs := m.mem[p.checkOff : p.checkOff+n]
		copy(cs, m.mem[:n])
		if e.opts.Canon != nil {
			e.opts.Canon(cs)
		}
		got = make([]uint64, p.lay.words)
		p.lay.pack(got, cs)
	}
	if !m.runInit() {
		m.clearFailure()
	}
	if got == nil {
		panic("wrapcheck internal error: compact trace replay lost the initial state")
	}
	targets := [][]uint64{got}
	for _, o := range ords[1:] {
		m.load(got)
		m.ord = 0
		got, want = nil, int(o)
		e.replaySuccessors(m, func() bool { return got != nil })
		if got == nil {
			panic("wrapcheck internal error: compact trace replay lost a step")
		}
		targets = append(targets, got)
	}
	return targets
}

// replaySuccessors generates the successors of the loaded state in the
// search's order until done: every action in order, or under
// Options.Ample the ample set, then the other enabled actions (the
// ordinals of those follow the ample set's when the search expanded
// them too).
func (e *explorer) replaySuccessors(m *Machine, done func() bool) {
	run := func(a int) bool {
		if !m.runAction(a) {
			m.clearFailure()
			m.undo(0)
			return false
		}
		return !done()
	}
	if e.opts.Ample == nil {
		for a := range e.prog.actions {
			if !run(a) {
				return
			}
		}
		return
	}
	var enabled []int
	for a := range e.prog.actions {
		if m.enabledGuard(a) {
			enabled = append(enabled, a)
		}
		m.err = nil
	}
	if len(enabled) == 0 {
		return
	}
	sub := slices.Clone(e.opts.Ample(m.mem[:e.n], slices.Clone(enabled)))
	for _, a := range sub {
		if !run(a) {
			return
		}
	}
	for _, a := range enabled {
		if !slices.Contains(sub, a) && !run(a) {
			return
		}
	}
}

// compactNote is the Result note of a hash-compacted search of n states.
func (e *explorer) compactNote(n int64) string {
	p := float64(n) * float64(n) / math.Exp2(65)
	s := fmt.Sprintf("hash compaction: %d states kept as 64-bit fingerprints; "+
		"probability that a fingerprint collision hid states <= n^2/2^65 = %.1e", n, p)
	if d := e.fps.dups.Load(); d > 0 {
		s += fmt.Sprintf(" (%d collisions between states of one level were found and are harmless)", d)
	}
	return s
}
