package checker

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wrapcheck/wrapcheck/machine"
)

// Hash compaction (Options.HashCompact).
//
// The visited set keeps a 64-bit fingerprint per state (fpSet, in the
// heap) and a trace record per state (records: parent index and successor
// ordinal, in a temporary file), indexed by a global state index that is
// the state's position in BFS order (level by level, each level in key
// order), so it is the same for every worker count. Full vectors are kept
// only for the level being expanded (in a second temporary file, in
// frontier order, read a batch at a time by the workers) and the level
// being built (explorer.store, a Store emptied at every level): a
// successor whose fingerprint is in the fingerprint set is a state of an
// earlier level (or collides with one and is lost); otherwise it is
// inserted, exactly, into the level store, which keeps its smallest key as
// in the full mode. When a level is complete its states get their global
// indexes, their records and vectors are written out, and their
// fingerprints join the set. The heap thus holds the fingerprints and one
// level; the files are read back only a batch at a time and for traces.
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
	// fpLargeShard is the shard size from which a table grows to load
	// 0.6 rather than 0.75 (a set of some 6·10⁷ states and more): half
	// as many rebuilds of tables that outgrew the caches, each of which
	// the kernel gives fresh memory to clear, for 8 bytes in 0.6-0.9 of
	// a slot instead of 0.75-0.9 (design/store.md, "Hash compaction").
	fpLargeShard = 1 << 18
	// compactGCPercent is GOGC during a hash-compacted search: the heap
	// is pointer-free tables, cheap to mark, and its growth is the
	// tables' own, so frequent collections keep the peak near the live
	// size instead of twice it.
	compactGCPercent = 5
	// The fingerprint set has 1<<shardBits shards, chosen by the top bits.
	shardBits = 8
	nShards   = 1 << shardBits
	cacheLine = 64
)

// compaction is the explorer's part for hash compaction: fps is nil in
// the full mode, and the other fields are then unused. Under HashCompact
// the explorer's store holds only the level being built and its frontier
// is nil: the frontier's vectors are in vecs, in frontier order (each
// worker reads its batch's, spillBufs[slot] is a parallelFor slot's
// buffer for writing them), and every state promoted so far has a global
// index, its position in BFS order: they are the first promoted, the
// frontier's from base on, and each has its trace record in recs. The
// states are then promoted+store.Len(). initDone is set once the initial
// states are promoted (until then a new state's key is its init
// ordinal). levelMax is the widest level the level store held (promote
// makes a new store when the levels shrink well below it).
type compaction struct {
	fps       *fpSet
	recs      records
	base      int64        // global index of frontier[0]
	promoted  atomic.Int64 // states with a global index
	initDone  bool
	vecs      *spill   // the vectors of the frontier, in order
	spillBufs [][]byte // per parallelFor slot
	levelMax  int      // the widest level the level store held
}

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
	zero   uint64       // what slotAddr points to for a shard with no table
	large  int          // fpLargeShard (tests lower it)
}

type fpShard struct {
	tab  []uint64 // size + fpSlack slots
	size int      // number of home positions
	n    int
	sink uint64 // insertShard's touches (see there)
	_    [cacheLine - 24 - 24]byte
}

// newFPSet returns an empty set; a shard's table is allocated by its
// first insert.
func newFPSet() *fpSet { return &fpSet{large: fpLargeShard} }

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

// slotAddr returns the address of fp's home slot, or of a zero word
// while its shard has no table, for flush's touch loop (see
// machine.Store.SlotAddr); like has, it is safe while no insert runs.
func (s *fpSet) slotAddr(fp uint64) *uint64 {
	sh := &s.shards[fp>>(64-shardBits)]
	if sh.tab == nil {
		return &s.zero
	}
	return &sh.tab[fpHome(fp, sh.size)]
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
		} else if need >= s.large {
			size = need * 5 / 3 // load 0.6: fewer rebuilds of large tables
		}
		s.rebuild(sh, max(size, fpInitSlots))
	}
	// The home slots first, in a loop of independent loads, so that
	// their cache misses overlap instead of each insert paying its own
	// (a shard's table is one 256th of a set that outgrows the cache).
	// The sum keeps the loads from being optimised away.
	var sink uint64
	for _, fp := range fps {
		sink += sh.tab[fpHome(fp, sh.size)]
	}
	sh.sink += sink
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
		adviseHuge(tab)
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

// records holds the trace record of every state by global index, in a
// spill file: its parent's index (noParent32 for an initial state) and
// the ordinal of the successor (or init branch) that first reached it,
// recSize bytes each, the ordinal in one byte with an escape to a map for
// the rare ordinals >= 255.
type records struct {
	file *spill
	mu   sync.Mutex
	big  map[uint32]uint32
}

const recSize = 5

// put encodes the record of state g into b[:recSize]; safe for
// concurrent use on distinct g.
func (r *records) put(b []byte, g, parent uint32, ord uint64) {
	binary.LittleEndian.PutUint32(b, parent)
	if ord < ordEscape {
		b[4] = uint8(ord)
		return
	}
	b[4] = ordEscape
	r.mu.Lock()
	if r.big == nil {
		r.big = map[uint32]uint32{}
	}
	r.big[g] = uint32(ord)
	r.mu.Unlock()
}

func (r *records) get(g uint32) (parent, ord uint32) {
	var b [recSize]byte
	r.file.readAt(b[:], int64(g)*recSize)
	parent, ord = binary.LittleEndian.Uint32(b[:]), uint32(b[4])
	if ord == ordEscape {
		ord = r.big[g]
	}
	return parent, ord
}

// heapBytes returns the records' memory: the escapes (the records
// themselves are in the file).
func (r *records) heapBytes() int64 {
	return int64(len(r.big)) * 16
}

// openSpills creates the files of a hash-compacted search.
func (e *explorer) openSpills() error {
	var err error
	if e.recs.file, err = newSpill("records"); err != nil {
		return err
	}
	if e.vecs, err = newSpill("level"); err != nil {
		e.recs.file.Close()
		return err
	}
	return nil
}

func (e *explorer) closeSpills() {
	e.recs.file.Close()
	e.vecs.Close()
}

// spillErr returns the first I/O error of the spill files.
func (e *explorer) spillErr() error {
	if e.fps == nil {
		return nil
	}
	if err := e.recs.file.Err(); err != nil {
		return err
	}
	return e.vecs.Err()
}

// spillStates writes states k0.. of the level being promoted (ps, sorted
// entries of one bucket, whose first parent position is p0; gbase is the
// level's first global index): their records, and their vectors at their
// frontier positions in the level file, which holds only that level (the
// level expanded last is no longer read). The entries are replaced by the
// states' fingerprints. For the initial states (p0 < 0), an entry's
// ordinal is the init ordinal.
func (e *explorer) spillStates(slot int, gbase int64, k0, p0 int, ps []uint64) {
	nw := e.prog.Words()
	need := len(ps) * (recSize + 8*nw)
	buf := e.spillBufs[slot]
	if cap(buf) < need {
		buf = make([]byte, need+need/4)
		e.spillBufs[slot] = buf
	}
	buf = buf[:need]
	recs, vecs := buf[:len(ps)*recSize], buf[len(ps)*recSize:]
	v := vecs
	for j, x := range ps {
		rel, ord, idx := unpackEntry(x)
		g := uint32(gbase + int64(k0+j))
		parent := uint32(noParent32)
		if p0 >= 0 {
			parent = uint32(e.base + int64(p0+rel))
		}
		e.recs.put(recs[j*recSize:], g, parent, ord)
		vec := e.store.Vector(idx)
		v = putWords(v, vec)
		ps[j] = fingerprint(machine.Hash(vec))
	}
	e.recs.file.writeAt(recs, (gbase+int64(k0))*recSize)
	e.vecs.writeAt(vecs, int64(k0*nw*8))
}

// promote makes the level just built (nn states, spilled by spillStates,
// which left their fingerprints in e.pairs[:nn]) the current level: they take the
// global indexes e.promoted.. in key order and their fingerprints join
// the set; the level store is emptied.
func (e *explorer) promote(nn int) {
	fps := e.pairs[:nn]
	cnt := groupByShard(fps)
	e.parallelFor(nShards, func(_, i int) {
		if cnt[i+1] > cnt[i] {
			e.fps.insertShard(i, fps[cnt[i]:cnt[i+1]])
		}
	})
	e.base = e.promoted.Load()
	// The level store follows the levels' size down too (see resize).
	e.levelMax = max(e.levelMax, nn)
	if e.levelMax > 1<<16 && 3*nn < 2*e.levelMax {
		e.store, e.levelMax = nil, nn
		runtime.GC() // see resize
		e.store = e.newStore(len(e.workers))
	} else {
		e.store.Reset()
	}
	e.promoted.Add(int64(nn))
}

// groupByShard reorders fps, in place, so that the fingerprints of each
// shard are contiguous and in shard order: those of shard i are
// fps[cnt[i]:cnt[i+1]].
func groupByShard(fps []uint64) (cnt [nShards + 1]int) {
	for _, f := range fps {
		cnt[f>>(64-shardBits)+1]++
	}
	for i := 1; i <= nShards; i++ {
		cnt[i] += cnt[i-1]
	}
	// Each shard's region fills from its start: an entry found out of
	// place is swapped to the next free slot of its own shard.
	fill := cnt
	for i := range nShards {
		for fill[i] < cnt[i+1] {
			f := fps[fill[i]]
			sh := f >> (64 - shardBits)
			if int(sh) == i {
				fill[i]++
				continue
			}
			fps[fill[i]], fps[fill[sh]] = fps[fill[sh]], f
			fill[sh]++
		}
	}
	return cnt
}

// promoteInit promotes the initial states, stored in e.store with their
// init ordinal as link, in frontier order.
func (e *explorer) promoteInit() {
	n := len(e.frontier)
	resize(&e.pairs, n)
	for j, idx := range e.frontier {
		e.pairs[j] = packEntry(0, *e.store.Link(idx), idx)
	}
	e.spillStates(0, 0, 0, -1, e.pairs)
	e.initDone = true
	e.promote(n)
}

// loadBatch reads the vectors of frontier positions p0..p1-1 from the
// level file.
func (w *worker) loadBatch(p0, p1 int) {
	nw := w.e.prog.Words()
	n := (p1 - p0) * nw
	if cap(w.batchVecs) < n {
		w.batchVecs = make([]uint64, n)
		w.batchBuf = make([]byte, 8*n)
	}
	w.batchVecs, w.batchBuf = w.batchVecs[:n], w.batchBuf[:8*n]
	w.e.vecs.readAt(w.batchBuf, int64(p0*nw*8))
	getWords(w.batchVecs, w.batchBuf)
	w.batchStart = p0
}

// frontierVector returns the packed state at frontier position p, which
// is in the worker's batch.
func (w *worker) frontierVector(p int) []uint64 {
	e := w.e
	if e.fps == nil {
		return e.store.Vector(e.frontier[p])
	}
	nw := e.prog.Words()
	i := p - w.batchStart
	return w.batchVecs[i*nw : (i+1)*nw : (i+1)*nw]
}

// readFrontier reads the packed state at frontier position p from the
// level file.
func (e *explorer) readFrontier(p int) []uint64 {
	nw := e.prog.Words()
	b := make([]byte, 8*nw)
	e.vecs.readAt(b, int64(p*nw*8))
	vec := make([]uint64, nw)
	getWords(vec, b)
	return vec
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
		last = e.readFrontier(int(pos))
		ords = e.lineage(uint32(e.base + int64(pos)))
	}
	if e.spillErr() != nil {
		return nil // the search ends with the error
	}
	t := e.replayOrdinals(ords)
	if !slices.Equal(t[len(t)-1], last) {
		panic("wrapcheck internal error: compact trace replay reached another state")
	}
	return t
}

// lineage returns the ordinals of the path to global state g, from its
// initial state's init ordinal on.
func (e *explorer) lineage(g uint32) []uint32 {
	var ords []uint32
	for g != noParent32 && e.recs.file.Err() == nil {
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
	var got []uint64
	want := int(ords[0])
	m.OnState(func(m *machine.Machine) {
		if got != nil || m.Ordinal() != want {
			return
		}
		cs := m.CheckSlots()
		copy(cs, m.Slots())
		if e.opts.Canon != nil {
			e.opts.Canon(cs)
		}
		got = make([]uint64, p.Words())
		p.Pack(got, cs)
	})
	if !m.RunInit() {
		m.ClearFailure()
	}
	if got == nil {
		panic("wrapcheck internal error: compact trace replay lost the initial state")
	}
	targets := [][]uint64{got}
	for _, o := range ords[1:] {
		m.Load(got)
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
func (e *explorer) replaySuccessors(m *machine.Machine, done func() bool) {
	run := func(a int) bool {
		if !m.RunAction(a) {
			m.ClearFailure() // the search went on after a failure too
		}
		return !done()
	}
	if e.opts.Ample == nil {
		for a := range e.prog.Actions() {
			if !run(a) {
				return
			}
		}
		return
	}
	var enabled []int
	for a := range e.prog.Actions() {
		if m.Guard(a) {
			enabled = append(enabled, a)
		}
	}
	if len(enabled) == 0 {
		return
	}
	sub := slices.Clone(e.opts.Ample(m.Slots(), slices.Clone(enabled)))
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
