package ltl

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// The batched expansion (docs/impl.md, "Liveness memory", the batched
// inserts): the product expands its nodes one at a time, and each new
// system state's successors go into the store one at a time, each insert
// a cache miss on its table slot paid before the next can start. So
// [product.explore] first computes the successors of the system states
// of the next prefetchNodes nodes (those that need expanding, in the
// order their nodes will expand them), without inserting them, loads
// their table slots in one tight loop so that the misses overlap, as the
// safety search's flush does, and then expands the nodes as before: the
// expansion of such a state replays its successors from the batch
// ([system.replay]) instead of computing them, and inserts them into the
// store (now in cache) in the same order, so the store's indexes, the
// product's nodes and every trace are those of the expansion without the
// batch. The successors of a state depend on its vector alone, so
// computing them early changes nothing else.

// prefetchNodes is the number of product nodes whose system states'
// successors one batch computes ahead.
const prefetchNodes = 32

// pendState is the successors of one state computed ahead: those of
// the collector pcol at lo..hi-1 (action -1: a vector of the stutter
// step of a state without enabled action), and the failure of the
// computation (its successors before the failure are there).
type pendState struct {
	idx    uint32
	lo, hi int
	err    error
}

// batched reports whether the system's expansions may be computed ahead:
// without reductions (canonical forms and ample sets, whose
// permutations' ids and proviso depend on the order of their
// computation) and hash compaction (derivations), with states of at
// least one word, unless Options.noBatch. The initial states are then
// inserted in batches too ([system.flushInits]).
func (s *system) batched() bool {
	return !s.noBatch && s.fp == nil && s.canon == nil && s.ample == nil && s.prog.Words() > 0
}

// pending reports whether the successors of idx were computed ahead.
func (s *system) pending(idx uint32) bool {
	for k := s.pendAt; k < len(s.pend); k++ {
		if s.pend[k].idx == idx {
			return true
		}
	}
	return false
}

// dropPending forgets the successors computed ahead.
func (s *system) dropPending() {
	s.pend, s.pendAt = s.pend[:0], 0
	s.pcol.N = 0
}

// pendCollector readies the collector of the successors computed ahead
// (the machine writes them into it: no call per successor).
func (s *system) pendCollector() *machine.Collector {
	c := &s.pcol
	if c.Full == nil {
		const n = 256
		*c = machine.Collector{Vecs: make([]uint64, n*s.prog.Words()), Succs: make([]machine.Succ, n),
			Limit: n, Fired: make([]int64, s.prog.Actions())}
		c.Full = s.growPending
	}
	return c
}

// growPending is the collector's Full: it doubles the collector's room.
func (s *system) growPending(*machine.Machine) { s.pcol.Grow() }

// pendPush adds t, a successor by action act, to the collector, its Key
// the action as [machine.Machine.CollectSuccessors] makes it (-1: all
// ones).
func (s *system) pendPush(act int32, t machine.State) {
	c := s.pendCollector()
	w := len(t)
	at := c.N
	copy(c.Vecs[at*w:(at+1)*w], t)
	c.Succs[at] = machine.Succ{H: s.store.Hash(t), Key: uint64(int64(act))}
	c.N = at + 1
	if c.N >= c.Limit {
		s.growPending(nil)
	}
}

// pendVec returns the vector of the successor computed ahead k.
func (s *system) pendVec(k int) []uint64 {
	w := s.prog.Words()
	return s.pcol.Vecs[k*w : (k+1)*w : (k+1)*w]
}

// prefetch computes the successors of the unexpanded state idx ahead,
// as [system.compute] would without reductions, and reports whether the
// computation succeeded.
func (s *system) prefetch(idx uint32) bool {
	if s.pendStutFn == nil {
		s.pendStutFn = s.pendStutter
	}
	c := s.pendCollector()
	lo := c.N
	st := s.store.Vector(idx)
	err := s.mach.CollectSuccessors(st, c)
	if err == nil && c.N == lo && len(s.prog.Model.Stutter) > 0 {
		err = s.mach.Stutter(st, s.pendStutFn)
	}
	s.pend = append(s.pend, pendState{idx: idx, lo: lo, hi: c.N, err: err})
	return err == nil
}

// pendStutter is the visit function of prefetch's stutter step.
func (s *system) pendStutter(t machine.State) { s.pendPush(-1, t) }

// touchPending loads the table slots of the successors computed ahead,
// and when the records hold the vectors, the records of likely
// duplicates, for the comparison of the insert ([machine.Store.TouchSuccs]).
func (s *system) touchPending() {
	w := s.prog.Words()
	succs := s.pcol.Succs[:s.pcol.N]
	s.sink += s.store.TouchSuccs(succs, s.pcol.Vecs[:len(succs)*w], w)
}

// replay fills s.buf/s.bufTo/s.bufPerm with the next successors computed
// ahead, those of the state being expanded, inserting them into the store
// in their order, as [system.compute] does as it computes them.
func (s *system) replay() error {
	ps := &s.pend[s.pendAt]
	s.pendAt++
	// Room for every successor (and the stutter) at once, written in
	// place: no append's capacity check per successor.
	room := max(ps.hi-ps.lo, 1)
	buf, bufTo, bufPerm := slices.Grow(s.buf[:0], room)[:room], slices.Grow(s.bufTo[:0], room)[:room], slices.Grow(s.bufPerm[:0], room)[:room]
	var addErr error
	stutTo := ps.idx
	n := 0
	w := s.prog.Words()
	succs := s.pcol.Succs[ps.lo:ps.hi]
	vecs := s.pcol.Vecs[ps.lo*w : ps.hi*w]
	for k := range succs {
		sc := &succs[k]
		to, err := s.insert(vecs[k*w:(k+1)*w:(k+1)*w], sc.H)
		if err != nil {
			addErr = err
			continue
		}
		act := int32(sc.Key) // the action (-1: the stutter)
		if act < 0 {
			stutTo = to
			continue
		}
		buf[n], bufTo[n], bufPerm[n] = act, to, 0
		n++
	}
	s.buf, s.bufTo, s.bufPerm = buf[:n], bufTo[:n], bufPerm[:n]
	err := ps.err
	if err == nil {
		err = addErr
	}
	if err == nil && len(s.buf) == 0 {
		s.buf = append(s.buf, -1)
		s.bufTo = append(s.bufTo, stutTo)
		s.bufPerm = append(s.bufPerm, 0)
	}
	return err
}

// prefetch computes ahead the successors of the system states of nodes
// lo..hi-1 that their expansion will compute: those not expanded yet
// (nor by an earlier node of the batch) with an automaton edge whose
// label holds. It stops at the first failure (of an atom or of the
// successors), which the node's expansion meets again.
func (p *product) prefetch(lo, hi int) {
	sys := p.sys
	sys.dropPending()
	// seen holds, at s%len(seen), s+1 for the last state s computed
	// ahead by this call: 0 there means that s is not pending, s+1 that it
	// is, and only another state there asks for the scan of pending.
	var seen [2 * prefetchNodes]uint32
	for k := lo; k < hi; k++ {
		s := p.sysOf(uint32(k))
		if sys.expanded.has(s) {
			continue
		}
		if h := seen[s%uint32(len(seen))]; h == s+1 || h != 0 && sys.pending(s) {
			continue
		}
		vals, err := p.atomValues(s)
		if err != nil {
			break
		}
		if len(p.liveEdges(p.stateQ(uint32(k)), vals)) == 0 {
			continue
		}
		seen[s%uint32(len(seen))] = s + 1
		if !sys.prefetch(s) {
			break
		}
	}
	sys.touchPending()
}

// initBatch is the number of initial states whose table slots
// [system.init] loads ahead of their inserts.
const initBatch = 256

// flushInits inserts the initial states in pendVec, in their order,
// their table slots loaded first; a state already stored is a duplicate
// (the store holds only initial states yet). A failure goes to addErr.
func (s *system) flushInits(addErr *error) {
	s.touchPending()
	for k, sc := range s.pcol.Succs[:s.pcol.N] {
		n := s.len()
		idx, err := s.insert(s.pendVec(k), sc.H)
		if err != nil {
			*addErr = err
			continue
		}
		if s.len() > n {
			s.inits.push(idx)
		}
	}
	s.dropPending()
}
