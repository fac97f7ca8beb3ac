package ltl

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// fpStore is the system's store under Options.HashCompact: per state a
// 64-bit fingerprint (the hash of its vector) and its derivation (the
// state whose expansion first found it: its place there is its first one
// in that state's kept successor list), not its vector. The vector of a
// state is kept only while it is waiting to be expanded (in chunks of
// pendChunk states, each shrunk to the vectors still waiting once they
// are few, and freed once none is) and for the initial states; the vector of an
// expanded state is computed again from its derivation
// ([system.compactState]) for the few uses after the expansion: the
// successors outside an ample set (the cycle proviso), the lists a trace
// needs and the trace itself. Two states with the same fingerprint are
// taken for one (the second is lost); a lasso is checked step by step on
// the states computed again ([system.checkRun]), so a reported violation
// is a real run. See docs/impl.md, "Liveness memory".
type fpStore struct {
	width int
	fps   []uint64 // per state: its fingerprint
	slots []uint32 // open addressing over fps: id+1, 0 empty
	// from is the derivation of state i >= ninit: the state whose list
	// found it.
	from     []uint32
	initDone bool
	ninit    uint32
	initVecs []uint64
	pend     [][]uint64 // per chunk of pendChunk states: their vectors while unexpanded
	pendN    []int32    // per chunk: its states waiting for expansion
	// pendAt, when not nil for a chunk, lists the places in the chunk of
	// the states whose vectors pend holds, in order: the chunk shrunk to
	// them (few were left).
	pendAt [][]uint16
	memo   map[uint32][]uint64
	fpMask uint64 // tests: fingerprints cut to these bits (collisions); 0: none
	unp    []int64
	packed []uint64
}

const (
	pendShift = 12
	pendChunk = 1 << pendShift
	ordRest   = 1 << 31
	maxMemo   = 1 << 12
)

// errCollision is the failure of a lasso that is no run of the system
// under Options.HashCompact: two states with one fingerprint were taken
// for one.
var errCollision = errors.New("a fingerprint collision of the hash compaction made the lasso found no run of the system (check again without --hash-compact)")

func newFPStore(width int) *fpStore {
	return &fpStore{width: width, slots: make([]uint32, 1<<10), memo: map[uint32][]uint64{}}
}

// Len returns the number of states stored.
func (f *fpStore) Len() int64 { return int64(len(f.fps)) }

// Bytes returns the bytes the store keeps (allocated capacity).
func (f *fpStore) Bytes() int64 {
	b := bytesOf(f.fps) + bytesOf(f.slots) + bytesOf(f.from) + bytesOf(f.initVecs) + bytesOf(f.pend) + bytesOf(f.pendN) + bytesOf(f.pendAt)
	for c := range f.pend {
		b += bytesOf(f.pend[c]) + bytesOf(f.pendAt[c])
	}
	return b
}

// fingerprint returns the fingerprint of vec.
func (f *fpStore) fingerprint(vec []uint64) uint64 {
	h := machine.Hash(vec)
	if f.fpMask != 0 {
		h &= f.fpMask
	}
	return h
}

// find returns the state with fingerprint h, if any, and the slot where
// it is or would be.
func (f *fpStore) find(h uint64) (id uint32, ok bool, slot uint64) {
	mask := uint64(len(f.slots) - 1)
	for i := machine.Mix(h) & mask; ; i = (i + 1) & mask {
		s := f.slots[i]
		if s == 0 {
			return 0, false, i
		}
		if f.fps[s-1] == h {
			return s - 1, true, i
		}
	}
}

// insert returns the state of vec, adding it (found by from's list)
// when its fingerprint is new.
func (f *fpStore) insert(vec []uint64, from uint32) (uint32, bool, error) {
	h := f.fingerprint(vec)
	id, ok, slot := f.find(h)
	if ok {
		return id, false, nil
	}
	n := len(f.fps)
	if n >= math.MaxUint32-1 {
		return 0, false, machine.ErrStoreFull
	}
	id = uint32(n)
	f.fps = append(f.fps, h)
	f.from = append(f.from, from)
	f.slots[slot] = id + 1
	if 4*(n+1) > 3*len(f.slots) {
		f.grow()
	}
	if !f.initDone {
		f.initVecs = append(f.initVecs, vec...)
		f.ninit = id + 1
		return id, true, nil
	}
	c := int(id >> pendShift)
	for len(f.pend) <= c {
		if k := len(f.pend) - 1; k >= 0 && f.pendN[k] == 0 {
			f.pend[k] = nil // every state of the last chunk is expanded
		}
		f.pend, f.pendN, f.pendAt = append(f.pend, nil), append(f.pendN, 0), append(f.pendAt, nil)
	}
	if f.pend[c] == nil {
		f.pend[c] = make([]uint64, pendChunk*f.width)
	}
	copy(f.pend[c][int(id&(pendChunk-1))*f.width:], vec)
	f.pendN[c]++
	return id, true, nil
}

// grow doubles the slots.
func (f *fpStore) grow() {
	f.slots = make([]uint32, 2*len(f.slots))
	mask := uint64(len(f.slots) - 1)
	for id, h := range f.fps {
		i := machine.Mix(h) & mask
		for f.slots[i] != 0 {
			i = (i + 1) & mask
		}
		f.slots[i] = uint32(id) + 1
	}
}

// held returns the vector of state id when the store has it: an initial
// state, or one not expanded yet (expanded false).
func (f *fpStore) held(id uint32, expanded bool) ([]uint64, bool) {
	if id < f.ninit {
		return f.initVecs[int(id)*f.width : int(id+1)*f.width], true
	}
	if expanded {
		return nil, false
	}
	ch := id >> pendShift
	c, o := f.pend[ch], int(id&(pendChunk-1))
	if at := f.pendAt[ch]; at != nil {
		k, ok := slices.BinarySearch(at, uint16(o))
		if !ok {
			panic(fmt.Sprintf("wrapcheck internal error: ltl: the vector of state %d was dropped before its expansion", id))
		}
		o = k
	}
	o *= f.width
	return c[o : o+f.width], true
}

// pendSize returns the number of vectors chunk c has room for.
func (f *fpStore) pendSize(c int) int {
	if at := f.pendAt[c]; at != nil {
		return len(at)
	}
	return pendChunk
}

// release drops the vector of state id, just expanded (expanded: per
// state, whether it is). A chunk behind the last one is freed when no
// state of it waits, and shrunk to the vectors of those that do whenever
// they fill a quarter of it (states that no product node expands, as the
// automaton prunes them, stay).
func (f *fpStore) release(id uint32, expanded *stateFlags) {
	if id < f.ninit {
		return
	}
	c := int(id >> pendShift)
	f.pendN[c]--
	switch n := f.pendN[c]; {
	case c == len(f.pend)-1:
	case n == 0:
		f.pend[c], f.pendAt[c] = nil, nil
	case 4*int(n) == f.pendSize(c):
		f.shrink(c, int(n), expanded)
	}
}

// shrink keeps, of chunk c, the vectors of its n states not expanded.
func (f *fpStore) shrink(c, n int, expanded *stateFlags) {
	at := make([]uint16, 0, n)
	vecs := make([]uint64, 0, n*f.width)
	lo := uint32(c) << pendShift
	for k := range f.pendSize(c) {
		o := uint16(k)
		if f.pendAt[c] != nil {
			o = f.pendAt[c][k]
		}
		if i := lo + uint32(o); int(i) < expanded.n && !expanded.has(i) && i >= f.ninit {
			at = append(at, o)
			vecs = append(vecs, f.pend[c][k*f.width:(k+1)*f.width]...)
		}
	}
	if len(at) != n {
		panic(fmt.Sprintf("wrapcheck internal error: ltl: chunk %d has %d vectors waiting, not %d", c, len(at), n))
	}
	f.pend[c], f.pendAt[c] = vecs, at
}

// compactState returns the vector of state idx under hash compaction:
// the one kept, or one computed again from the derivations down from a
// kept one (each step the successor at the recorded place of the list its
// parent's expansion computed; the last steps are remembered for the next
// calls).
func (s *system) compactState(idx uint32) machine.State {
	f := s.fp
	if v, ok := f.held(idx, s.expanded.has(idx)); ok {
		return v
	}
	if v, ok := f.memo[idx]; ok {
		return v
	}
	chain := []uint32{idx}
	var vec []uint64
	for {
		p := f.from[chain[len(chain)-1]]
		if v, ok := f.held(p, s.expanded.has(p)); ok {
			vec = v
			break
		}
		if v, ok := f.memo[p]; ok {
			vec = v
			break
		}
		chain = append(chain, p)
	}
	if len(f.memo)+len(chain) > maxMemo {
		clear(f.memo)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		vec = s.nth(f.from[c], vec, s.place(f.from[c], c))
		if vec == nil || f.fingerprint(vec) != f.fps[c] {
			panic(fmt.Sprintf("wrapcheck internal error: ltl: state %d computed again from its derivation differs", c))
		}
		f.memo[c] = vec
	}
	return vec
}

// place returns the first place of state c in the kept successor list
// of state p, the one whose expansion found it (ordRest set: in the list
// of its successors outside the ample set, which restOf computed).
func (s *system) place(p, c uint32) uint32 {
	off, n := s.listAt(p)
	s.placeBuf = s.targetsOf(p, false, off, n, s.placeBuf[:0])
	if k := slices.Index(s.placeBuf, c); k >= 0 {
		return uint32(k)
	}
	if s.rest[p] {
		r := s.restAt[p]
		s.placeBuf = s.targetsOf(p, true, r[0], r[1], s.placeBuf[:0])
		if k := slices.Index(s.placeBuf, c); k >= 0 {
			return uint32(k) | ordRest
		}
	}
	panic(fmt.Sprintf("wrapcheck internal error: ltl: state %d is not in the lists of the state that found it", c))
}

// nth returns a copy of the canonical successor at place ord of the list
// of state p (vector st), computed again as its expansion computed it
// (nil when there is none).
func (s *system) nth(p uint32, st machine.State, ord uint32) []uint64 {
	m := s.remach
	k := int(ord &^ ordRest)
	var out []uint64
	n := 0
	visit := func(_, _ int, t machine.State) {
		if n == k {
			out = s.canonical(t)
		}
		n++
	}
	switch {
	case ord&ordRest != 0:
		en, sub := s.ampleSet(m, st)
		var others []int
		for _, a := range en {
			if !slices.Contains(sub, a) {
				others = append(others, a)
			}
		}
		_ = m.SuccessorsOf(st, others, visit)
	case s.reduced.has(p):
		_, sub := s.ampleSet(m, st)
		_ = m.SuccessorsOf(st, slices.Clone(sub), visit)
	default:
		_ = m.Successors(st, visit)
		if n == 0 && k == 0 {
			_ = m.Stutter(st, func(t machine.State) { out = s.canonical(t) })
		}
	}
	return out
}

// canonical returns a copy of the stored form of t (canonical under
// symmetry reduction), in buffers of its own (canonicalIs and add
// compare and store the system's).
func (s *system) canonical(t machine.State) []uint64 {
	if s.canon == nil {
		if len(t) == 0 {
			return []uint64{0}
		}
		return slices.Clone(t)
	}
	f := s.fp
	if f.unp == nil {
		f.unp, f.packed = make([]int64, s.prog.Slots()), make([]uint64, s.prog.Words())
	}
	s.prog.Unpack(f.unp, t)
	s.canonFn(f.unp)
	s.prog.Pack(f.packed, f.unp)
	return slices.Clone(f.packed)
}

// checkRun reports errCollision unless the states vecs, reached by acts
// (-1: the stutter of a state without successor), are a run of the
// system whose last state is vecs[loopAt-1] (when loopAt < len(vecs)):
// under hash compaction the product may have taken two states with one
// fingerprint for one. Without symmetry reduction vecs are the stored
// states; with it, the concrete run of concretize.
func (s *system) checkRun(vecs [][]uint64, acts []int32, loopAt int) error {
	m := s.remach
	for i := 1; i < len(vecs); i++ {
		prev, want := vecs[i-1], vecs[i]
		found := false
		if acts[i] < 0 {
			n := 0
			_ = m.Successors(prev, func(_, _ int, _ machine.State) { n++ })
			if n > 0 {
				return errCollision
			}
			found = slices.Equal(prev, want)
			if len(s.prog.Model.Stutter) > 0 {
				_ = m.Stutter(prev, func(t machine.State) { found = slices.Equal(t, want) })
			}
		} else {
			_ = m.SuccessorsOf(prev, []int{int(acts[i])}, func(_, _ int, t machine.State) {
				found = found || slices.Equal(t, want)
			})
		}
		if !found {
			return errCollision
		}
	}
	if loopAt >= 1 && loopAt < len(vecs) && !slices.Equal(vecs[len(vecs)-1], vecs[loopAt-1]) {
		return errCollision
	}
	return nil
}

// compactNote is the Result note of the property searches of a check
// under hash compaction, whose systems kept ns states each.
func compactNote(ns []int64) string {
	var n int64
	var p float64
	for _, k := range ns {
		n += k
		p += float64(k) * float64(k) / math.Exp2(65)
	}
	return fmt.Sprintf("hash compaction: the property searches kept %d system states as 64-bit fingerprints; "+
		"probability that a fingerprint collision hid states <= n^2/2^65 per search = %.1e", n, p)
}
