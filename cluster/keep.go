package cluster

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// keep stores a successor that this worker owns, vec of hash h with key
// k: a new state gets its key and its invariants checked (against
// parent, the packed state it was made from; nil: every conjunct), a
// state of this level keeps the smaller key. It reports whether the
// state was stored before the level.
func (w *worker) keep(vec []uint64, h uint64, k key, parent []uint64) (old bool, err error) {
	// One goroutine uses the visited set: no locks.
	idx, isNew, err := w.visited.InsertHashed(vec, h, 0, false)
	if err != nil {
		return false, err
	}
	switch {
	case isNew:
		w.stored(idx, vec, k, parent)
	case idx == machine.NoIndex:
		// A keyed set's duplicate (newVisited): its first key was the
		// smallest.
	case idx >= w.levelStart:
		if i := idx - w.levelStart; k.Less(w.keys[i]) {
			w.keys[i] = k
			w.lowered = append(w.lowered, i)
		}
	}
	return !isNew && idx < w.levelStart, nil
}

// stored records the key k of the new state idx (vector vec) and checks
// its invariants against parent, the packed state it was made from (nil:
// every conjunct).
func (w *worker) stored(idx uint32, vec []uint64, k key, parent []uint64) {
	w.keys = append(w.keys, k)
	var b bad
	var found bool
	if parent != nil {
		b, found = w.e.checkSucc(vec, parent, w.witnessed, &w.unwit)
	} else {
		b, found = w.e.check(vec, w.witnessed, &w.unwit)
	}
	if found {
		w.bads[idx] = b
	}
}

// pending is a successor that the expanding worker owns, waiting in
// flush (its hash and ordinal in pendS, its vector in pendVec): the
// frontier index of its parent, and whether the parent asks if it was
// stored before the level.
type pending struct {
	parent int32
	ask    bool
}

// flushAt is the number of pending successors at which an expansion
// ends with a flush.
const flushAt = 64

// expansion is the frontier state being expanded: its index and
// position, whether it asks the owners of its successors if they were
// stored before the level, and the outboxes of the phase.
type expansion struct {
	out    []outbox
	parent int
	pos    uint64
	ask    bool
	// once: the phase's keys ascend (phase A), so a successor this worker
	// sent before, in this level or an earlier one, may be left out
	// ([worker.sentBefore])
	once bool
}

// successors is the engine's succ function (e.succ) when there is more
// than one worker: each successor of the state being expanded (w.x),
// packed in vecs, with its ordinal and hash in succs, goes to its
// owner's outbox, or, when this worker owns it, waits for flush. (One
// worker's successors stay in the engine's collector: [worker.flushHeld].)
func (w *worker) successors(vecs []uint64, succs []machine.Succ) {
	x := &w.x
	nw := w.e.words
	for i, sc := range succs {
		t := vecs[i*nw : (i+1)*nw : (i+1)*nw]
		if o := w.owner(sc.H, t); o != w.idx {
			if x.once && !x.ask && w.sentBefore(t, sc.H) {
				continue
			}
			x.out[o].add(t, key{Pos: x.pos, Ord: sc.Key}, x.ask, x.parent)
			continue
		}
		// A loop, not append's copy: vectors are a few words.
		n := len(w.pendVec)
		if cap(w.pendVec)-n < nw {
			w.pendVec = slices.Grow(w.pendVec, nw)
		}
		w.pendVec = w.pendVec[:n+nw]
		for j, v := range t {
			w.pendVec[n+j] = v
		}
		w.pend = append(w.pend, pending{parent: int32(x.parent), ask: x.ask})
		w.pendS = append(w.pendS, sc)
	}
}

// heldRun is a run of the successors one worker's engine holds in its
// collector ([engine.keepCol]): those before end (and after the run
// before), of the frontier state parent, which asks if they were stored
// before the level when ask.
type heldRun struct {
	end    int
	parent int32
	ask    bool
}

// expanded ends the expansion of the frontier state w.x.parent: one
// worker notes the run of its successors in the collector; the
// successors waiting are flushed once there are flushAt of them.
func (w *worker) expanded(ps []pstate) error {
	if w.e.keepCol {
		if n := w.e.col.N; len(w.runs) == 0 || w.runs[len(w.runs)-1].end < n {
			w.runs = append(w.runs, heldRun{end: n, parent: int32(w.x.parent), ask: w.x.ask})
		}
		if w.e.col.N < flushAt {
			return nil
		}
	} else if len(w.pend) < flushAt {
		return nil
	}
	return w.flush(ps)
}

// flush stores the successors waiting (keep), checked against their
// parents, and marks the asking parents of the states stored before the
// level in ps. Their table slots are loaded first, in a loop of a few
// instructions a load, so that the cache misses of a batch are in
// flight together, not paid one after the other (as checker's flush).
func (w *worker) flush(ps []pstate) error {
	if w.e.keepCol {
		return w.flushHeld(ps)
	}
	nw := w.e.words
	pend, pendS, pendVec := w.pend, w.pendS, w.pendVec // in registers: keep writes w
	w.sink += w.visited.TouchSuccs(pendS, pendVec, nw)
	cur := int32(-1)
	var parent []uint64
	var pos uint64
	for i, p := range pend {
		if p.parent != cur {
			cur = p.parent
			parent = w.visited.Vector(w.front[cur])
			pos = w.fpos[cur]
		}
		old, err := w.keep(pendVec[i*nw:(i+1)*nw:(i+1)*nw], pendS[i].H, key{Pos: pos, Ord: pendS[i].Key}, parent)
		if err != nil {
			return err
		}
		if old && p.ask {
			ps[p.parent].old = true
		}
	}
	w.pend, w.pendS, w.pendVec = pend[:0], pendS[:0], pendVec[:0]
	return nil
}

// flushHeld is flush for one worker, whose successors wait where the
// machine wrote them, in the engine's collector (no copy of each), their
// parents in w.runs. A keyed set (one word a state, no ample sets: no
// parent asks) is inserted into directly: a duplicate is NoIndex, and
// its first key was its smallest (newVisited).
func (w *worker) flushHeld(ps []pstate) error {
	c := &w.e.col
	nw := w.e.words
	succs, vecs := c.Succs[:c.N], c.Vecs[:c.N*nw]
	w.sink += w.visited.TouchSuccs(succs, vecs, nw)
	var err error
	if w.visited.Keyed() {
		err = w.flushHeldKeyed(succs, vecs)
	} else {
		lo := 0
		for _, r := range w.runs {
			parent := w.visited.Vector(w.front[r.parent])
			pos := w.fpos[r.parent]
			for i := lo; i < r.end; i++ {
				old, err := w.keep(vecs[i*nw:(i+1)*nw:(i+1)*nw], succs[i].H, key{Pos: pos, Ord: succs[i].Key}, parent)
				if err != nil {
					return err
				}
				if old && r.ask {
					ps[r.parent].old = true
				}
			}
			lo = r.end
		}
	}
	c.N, w.runs = 0, w.runs[:0]
	return err
}

// flushHeldKeyed is flushHeld's loop for a keyed set: one word a state,
// and no parent asks (newVisited).
func (w *worker) flushHeldKeyed(succs []machine.Succ, vecs []uint64) error {
	lo := 0
	for _, r := range w.runs {
		parent := w.visited.Vector(w.front[r.parent])
		pos := w.fpos[r.parent]
		for i := lo; i < r.end; i++ {
			idx, isNew, err := w.visited.InsertWord(vecs[i], succs[i].H, 0)
			if err != nil {
				return err
			}
			if isNew {
				w.stored(idx, vecs[i:i+1:i+1], key{Pos: pos, Ord: succs[i].Key}, parent)
			}
		}
		lo = r.end
	}
	return nil
}

// The sent cache: a direct-mapped table of the vectors this worker sent
// to other workers, by the low bits of their hashes, sentSlots of them
// (fewer for wide vectors, so that it stays within sentBytes). A
// successor owned by another worker is most often one that this worker
// sent a moment before: the same state reached from another parent of
// the level (on pipeline K=3 N=2, 54% of the records two workers send,
// 40% of four's; a table of 2^14 slots keeps 96% of those repeats, one
// of 2^16 99%). Leaving it out changes nothing the owner keeps: within
// phase A the keys a worker sends ascend (its frontier in position
// order, each state's ordinals in order), so a repeat of this level has
// a larger key than the copy sent, which the owner keeps or lowers
// anyway; a repeat of an earlier level is a state the owner stored when
// that level was committed, which a level is before the next is
// expanded. Asking records (partial-order reduction) are always sent,
// each needs its answer, and phase B's, whose keys may be smaller than
// phase A's, neither look the table up nor enter it.
const (
	sentSlots = 1 << 14
	sentBytes = 1 << 18
)

// sentBefore reports whether the vector t, whose hash is h, is in the
// sent cache, and enters it when it is not. A slot holds a vector with
// its first word plus one (0: empty), so a vector whose first word is
// all ones is never entered.
func (w *worker) sentBefore(t []uint64, h uint64) bool {
	nw := len(t)
	if w.sent == nil {
		n := sentSlots
		for n > 1 && n*nw*8 > sentBytes {
			n >>= 1
		}
		w.sent = make([]uint64, n*nw)
		w.sentMask = uint64(n - 1)
	}
	i := int(h&w.sentMask) * nw
	e := w.sent[i : i+nw : i+nw]
	first := t[0] + 1
	if first == 0 {
		return false
	}
	if e[0] == first && slices.Equal(e[1:], t[1:]) {
		return true
	}
	e[0] = first
	copy(e[1:], t[1:])
	return false
}
