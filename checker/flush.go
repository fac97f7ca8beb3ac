package checker

import (
	"slices"
	"sync/atomic"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// onSuccs sets the worker's machine to hand the successors to the
// search: collected into pend without a call each, unless each must be
// canonicalised first (onSucc).
func (w *worker) onSuccs() {
	if !w.collecting {
		w.m.OnState(w.onSucc)
		return
	}
	w.m.Collect(&w.col)
}

// colFull is the collector's Full: touchBatch successors are pending.
func (w *worker) colFull(*machine.Machine) {
	w.loaded = false // the action state is the last successor
	w.flushPend()
}

// npend returns the number of pending successors.
func (w *worker) npend() int {
	if w.collecting {
		return w.col.N
	}
	return len(w.pend)
}

// flushPend is flush of the pending successors, collected or not.
func (w *worker) flushPend() {
	if w.collecting {
		n := w.col.N
		w.pend = w.col.Succs[:n]
		w.pendVec = w.col.Vecs[:n*len(w.vec)]
		w.col.N = 0
	}
	w.flush()
}

// onSucc handles one successor of the state at frontier position w.pos:
// onSuccs's collector does the same, without canonicalisation.
func (w *worker) onSucc(m *machine.Machine) {
	if m.Interrupted() {
		return
	}
	e := w.e
	w.trans++
	w.fired[m.Action()]++
	// The successor is packed in place at the end of pendVec.
	nw := len(w.vec)
	at := len(w.pendVec)
	if cap(w.pendVec)-at < nw {
		w.pendVec = slices.Grow(w.pendVec, nw)
	}
	w.pendVec = w.pendVec[:at+nw]
	vec := w.pendVec[at : at+nw : at+nw]
	var h uint64
	if e.opts.Canon != nil {
		e.prog.Pack(vec, w.canonical(m))
		h = machine.Hash(vec)
	} else {
		h = m.RepackHash(vec, w.parent) // only the slots the action wrote
	}
	key := verdict.Key{Pos: uint64(w.pos), Ord: verdict.Ordinal(m.Ordinal())}.Word()
	w.pend = append(w.pend, pending{H: h, Key: key})
	if len(w.pend) >= touchBatch {
		w.loaded = false // the action state is this successor
		w.flush()
	}
}

// pending is a successor waiting in flush: its hash and tie-break key.
type pending = machine.Succ

// flushAt is the number of pending successors at which an expansion
// ends with a flush: below it, the successors of the next frontier states
// of the batch join them first, so that the cache misses of the table
// slots of several states' successors overlap.
const flushAt = 32

// touchBatch is the number of pending successors whose slots flush
// loads in one tight loop.
const touchBatch = 64

// flush inserts the pending successors into the store. Their hash-table
// slots are touched first in a tight loop, so that the cache misses of a
// batch overlap instead of being paid one after the other. The pending
// successors may be those of several frontier states (positions from
// their keys), all of the worker's current batch; when w.loaded is set,
// the action state is the loaded state at w.pos, the last of them.
func (w *worker) flush() {
	w.checkReady = false
	loaded := w.loaded
	e := w.e
	if e.stopping() {
		w.cut = true
		w.pend = w.pend[:0]
		w.pendVec = w.pendVec[:0]
		w.m.PollSoon() // end the expansion at its next branch
		return
	}
	st := e.store
	fps := e.fps
	if fps == nil && st.Keyed() && !e.parallel {
		w.flushKeyed(loaded)
		return
	}
	// The slots' addresses first (loads that hit the cache), then the
	// slots themselves in a loop of a few instructions a load: the
	// out-of-order window then holds the misses of the whole batch, not
	// of the few successors whose address computations fit in it. The
	// addresses are kept on the stack (no write barrier).
	var sink uint64
	var refs [2 * touchBatch]*uint64
	for k := 0; k < len(w.pend); k += touchBatch {
		n := 0
		for _, pd := range w.pend[k:min(k+touchBatch, len(w.pend))] {
			refs[n] = st.SlotAddr(pd.H)
			n++
			if fps != nil {
				refs[n] = fps.slotAddr(fingerprint(pd.H))
				n++
			}
		}
		for _, r := range refs[:n] {
			sink += atomic.LoadUint64(r)
		}
	}
	m := w.m
	nw := e.prog.Words()
	par := e.parallel
	// Second round, slots now in cache: the records of likely duplicates,
	// for their vectors, or when the slots hold the vectors, for their
	// link words, which only a parallel level reads (below).
	if par || !st.InSlot() {
		if fps == nil && len(w.pend) <= touchBatch {
			// refs[i] is the slot of pend[i], from the loop above.
			for i, pd := range w.pend {
				sink += st.TouchRecordAt(refs[i], w.pendVec[i*nw:(i+1)*nw], pd.H)
			}
		} else {
			for i, pd := range w.pend {
				sink += st.TouchRecord(w.pendVec[i*nw:(i+1)*nw], pd.H)
			}
		}
	}
	w.sink += sink
	cur, parent := -1, w.parent
	made := 0
	// The batch and the level's start in locals: the loop calls out (the
	// insert, the invariants), after which fields would be loaded again.
	pend, pendVec, levelStart, keyed := w.pend, w.pendVec, e.levelStart, st.Keyed()
	for i := range pend {
		pd := &pend[i]
		vec := pendVec[i*nw : (i+1)*nw : (i+1)*nw]
		if pos := int(pd.Key >> ordBits); pos != cur {
			cur = pos
			parent = w.nextParent(pos, loaded)
		}
		if fps != nil && fps.has(fingerprint(pd.H)) {
			w.sawOld = true // a state of an earlier level, or one colliding with it
			continue
		}
		var idx uint32
		var isNew bool
		var err error
		if par {
			if idx, isNew, err = w.insertParallel(*pd, vec, parent); err == machine.ErrGrowing {
				continue // set aside
			}
		} else if keyed {
			idx, isNew, err = st.InsertWord(vec[0], pd.H, pd.Key)
		} else {
			idx, isNew, err = st.InsertHashed(vec, pd.H, pd.Key, false)
		}
		if err != nil {
			e.stop.CompareAndSwap(runOK, stopFull)
			break
		}
		switch {
		case isNew:
			made++
			w.checkState(m, idx, vec, parent)
		case idx < levelStart:
			// The cycle proviso looks only at states stored before this
			// level (levels no deeper than the parent): every cycle has
			// such an edge, and unlike "already stored" it does not
			// depend on which worker stored a state of the next level
			// first.
			w.sawOld = true
		case par:
			e.keepSmallestKey(idx, pd.Key)
		}
	}
	w.pend = w.pend[:0]
	w.pendVec = w.pendVec[:0]
	if made > 0 {
		w.madeStates(made, nw)
	}
	if len(w.deferred) > 0 {
		w.retryDeferred(false)
	}
}

// flushKeyed is flush for one worker whose store keeps one-word vectors
// in its slots ([machine.Store.Keyed]; no hash compaction): the same
// inserts in the same order, in a loop with none of the other cases' tests
// (a duplicate is NoIndex, never a state of an earlier level: the cycle
// proviso, which asks, has a store with indexes).
func (w *worker) flushKeyed(loaded bool) {
	e := w.e
	st := e.store
	pend := w.pend
	vecs := w.pendVec[:len(pend)]
	w.sink += st.TouchSuccs(pend, vecs, 1)
	m := w.m
	cur, parent := -1, w.parent
	made := 0
	for i := range pend {
		key := pend[i].Key
		if pos := int(key >> ordBits); pos != cur {
			cur = pos
			parent = w.nextParent(pos, loaded)
		}
		idx, isNew, err := st.InsertWord(vecs[i], pend[i].H, key)
		if err != nil {
			e.stop.CompareAndSwap(runOK, stopFull)
			break
		}
		if isNew {
			made++
			w.checkState(m, idx, vecs[i:i+1:i+1], parent)
		}
	}
	w.pend = w.pend[:0]
	w.pendVec = w.pendVec[:0]
	if made > 0 {
		w.madeStates(made, 1)
	}
}

// nextParent returns the vector of the frontier state at position pos,
// the parent of flush's next successors: the check area is made ready
// for it at its first new state, and the action state is that parent
// when it is the loaded one (loaded: flush at the end of its expansion).
func (w *worker) nextParent(pos int, loaded bool) []uint64 {
	w.checkReady = false
	w.loaded = loaded && pos == w.pos
	if pos != w.pos {
		return w.frontierVector(pos)
	}
	return w.parent
}

// keepSmallestKey makes the state at index idx, stored in this level,
// keep the tie-break key key if it is smaller than its own: a duplicate
// of a parallel level keeps the smallest key of the level, whichever
// worker stored it first. (One worker inserts in key order, frontier
// positions then ordinals, both increasing, so there the stored key is
// already the smaller.)
func (e *explorer) keepSmallestKey(idx uint32, key uint64) {
	l := e.store.Link(idx)
	for {
		old := atomic.LoadUint64(l)
		if old <= key || atomic.CompareAndSwapUint64(l, old, key) {
			return
		}
	}
}

// insertParallel inserts a successor of a parallel level, as flush's
// loop does, unless its shard is being grown by another worker: then it
// sets it aside with its parent for a later retryDeferred and returns
// [machine.ErrGrowing]. During a growth storm, when every shard reaches
// its bound within a few thousand states, waiting for those growths made
// two workers' growths nearly serial. Not inlined: its code would crowd
// flush's loop, which one worker runs without it.
//
//go:noinline
func (w *worker) insertParallel(pd pending, vec, parent []uint64) (uint32, bool, error) {
	if testDeferEvery > 0 && w.testDefer() {
		w.setAside(pd, vec, parent)
		return 0, false, machine.ErrGrowing
	}
	idx, isNew, err := w.e.store.TryInsertBlock(vec, pd.H, pd.Key, &w.blk)
	if err == machine.ErrGrowing {
		w.setAside(pd, vec, parent)
	}
	return idx, isNew, err
}

// setAside keeps a successor that could not be inserted while its shard
// was being grown, with its parent, for retryDeferred (under HashCompact
// only the batch's frontier vectors are at hand later, so the parent
// goes along).
func (w *worker) setAside(pd pending, vec, parent []uint64) {
	w.deferred = append(w.deferred, pd)
	w.deferredVec = append(w.deferredVec, vec...)
	w.deferredPar = append(w.deferredPar, parent...)
}

// testDeferEvery, set by tests only, makes insertParallel set aside
// every testDeferEvery-th successor, as if its shard were being grown: the set-aside paths then
// run in every parallel level, not only in growth storms. testDeferred
// counts them.
var (
	testDeferEvery int
	testDeferred   atomic.Int64
)

// testDefer reports whether insertParallel sets the successor aside under
// testDeferEvery.
func (w *worker) testDefer() bool {
	w.deferTick++
	if w.deferTick%testDeferEvery != 0 {
		return false
	}
	testDeferred.Add(1)
	return true
}

// retryDeferred inserts the successors set aside in w.deferred and
// checks the new ones, as flush does; unless wait, those whose shards are
// still being grown are set aside again. The order of inserts decides no
// count, key or position: a state keeps the smallest key of the level
// whoever stores it, and positions follow keys.
func (w *worker) retryDeferred(wait bool) {
	e := w.e
	st := e.store
	nw := e.prog.Words()
	ps, vecs, pars := w.deferred, w.deferredVec, w.deferredPar
	// The set-aside successors move to the spare arrays; those set aside
	// again land in the emptied ones.
	w.deferred, w.deferredVec, w.deferredPar = w.spare.ps[:0], w.spare.vecs[:0], w.spare.pars[:0]
	w.loaded = false // the action state is no parent of these
	cur := -1
	for i, pd := range ps {
		vec := vecs[i*nw : (i+1)*nw]
		parent := pars[i*nw : (i+1)*nw : (i+1)*nw]
		if pos := int(pd.Key >> ordBits); pos != cur {
			cur = pos
			w.checkReady = false
		}
		var idx uint32
		var isNew bool
		var err error
		if wait {
			idx, isNew, err = st.InsertBlock(vec, pd.H, pd.Key, &w.blk)
		} else if idx, isNew, err = st.TryInsertBlock(vec, pd.H, pd.Key, &w.blk); err == machine.ErrGrowing {
			w.setAside(pd, vec, parent)
			continue
		}
		if err != nil {
			e.stop.CompareAndSwap(runOK, stopFull)
			break
		}
		switch {
		case isNew:
			w.checkState(w.m, idx, vec, parent)
		case idx < e.levelStart:
			w.sawOld = true
		default:
			e.keepSmallestKey(idx, pd.Key)
		}
	}
	w.spare.ps, w.spare.vecs, w.spare.pars = ps[:0], vecs[:0], pars[:0]
}
