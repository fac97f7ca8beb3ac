package ltl

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	red "github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// system caches the explored part of the model's transition system: the
// distinct states (in a machine.Store), their successors (action and
// target state, or one stutter self-loop with action -1 when no action is
// enabled) and the fairness units enabled in each. It is shared by the
// products of all properties. Not safe for concurrent use.
//
// Its parts are value structs embedded in it, so that their fields are
// reached without a load more: the states (below), the reductions, the
// thread tracking, the fairness units, the kept successor lists, the
// expansion in progress, the expansions computed ahead and the hash
// compaction.
type system struct {
	prog  *machine.Program
	mach  *machine.Machine
	store *machine.Store
	key   string // the plan's
	// inits are the initial states, without duplicates, in the order
	// the init block found them.
	inits   paged[uint32]
	initErr error // the init block's failure, returned to every user
	// expanded marks the states whose successors were computed (once:
	// [system.expand]); failure holds those whose expansion failed (few),
	// so that every later call returns the same failure.
	expanded    stateFlags
	failure     map[uint32]*machine.ExecError
	transitions int64 // the system transitions of the expanded states

	compaction
	reduction
	threadTracking
	fairness
	keptLists
	expansion
	lookahead
}

// compaction is the system's hash compaction (Options.HashCompact): fp
// replaces store (nil: not compacted), and from is then the state being
// expanded (the derivation of the states it finds).
type compaction struct {
	fp       *fpStore
	from     uint32
	placeBuf []uint32 // [system.place]: a kept list decoded
}

// reduction holds the reductions: states are stored canonical (canon !=
// nil), and the successors of a state are first those of an ample set
// (ample != nil); rest holds, for a state whose ample set is proper, the
// successors by the other enabled actions once asked for.
type reduction struct {
	canon   *red.Canon
	canonFn verdict.CanonFunc // canon.Func(), taken once
	ample   verdict.AmpleFunc
	reduced stateFlags      // per state: its ample set is proper
	rest    map[uint32]bool // the reduced states whose other successors were computed
	unp     []int64         // a state unpacked, for canon and ample
	packed  []uint64        // the canonical state packed again
	en      []int           // the enabled actions ([system.ampleSet])
	enSub   []int           // the copy of en given to the ample function
	others  []int           // the enabled actions outside the ample set
}

// threadTracking is the thread tracking (threads not empty, under
// symmetry): per successor, the permutation that canonicalised it, as an
// id into perms (0: the identity); lastPerm is that of the state added
// last ([system.add]).
type threadTracking struct {
	threads  []threadDecl
	typeOf   []int // per thread declaration: its type's index in perms[id]
	perms    [][][]int32
	permIDs  map[string]uint32
	permBuf  [][]int32
	permKey  []byte // permBuf as a map key, reused
	lastPerm uint32
}

// fairness is the model's fairness units and the units enabled in each
// expanded state: uw words per unit set; actionUnits has uw words per
// action, the units it belongs to; a state's units are a byte of
// enabled8 when there are at most 8 ([system.units8]), else uw words of
// enabled ([system.unitsEnabled]).
type fairness struct {
	units       []unit
	unitDecl    []int    // per unit: its fairness declaration
	uw          int      // words per unit set
	actionUnits []uint64 // per action: uw words, the units it belongs to
	enabled     []uint64 // per state: uw words of enabled units
	enabled8    []uint8  // per state, with at most 8 units ([system.units8]): them
	enBuf       [1]uint64
}

// expansion is the list of the expansion in progress, or of the last
// one ([system.successors], [system.stutterStep]): buf, bufTo and
// bufPerm, one entry per successor, its action, target and permutation
// (0 without thread tracking); visitFn and stutFn are the machine's
// visit functions, method values taken once, addErr the failure of an
// add inside them, and stutTo and stutPrm the target and permutation of
// the stutter step ([system.stutter]).
type expansion struct {
	visitFn func(action, branch int, t machine.State)
	stutFn  func(t machine.State)
	addErr  error
	stutTo  uint32
	stutPrm uint32
	buf     []int32
	bufTo   []uint32
	bufPerm []uint32
}

// lookahead is the successors of the states the next nodes expand,
// computed ahead (batch.go): pend[pendAt:] are still to be expanded.
type lookahead struct {
	pend       []pendState
	pendAt     int
	pcol       machine.Collector // the successors computed ahead
	pendStutFn func(t machine.State)
	sink       uint64 // the sum of the touched slots, so that the loads stay
	noBatch    bool   // Options.noBatch
}

// stateFlags is one flag per stored state, 64 to a word.
type stateFlags struct {
	w []uint64
	n int // the states
}

// add adds the flag of the next state, false.
func (f *stateFlags) add() {
	if f.n%64 == 0 {
		f.w = append(f.w, 0)
	}
	f.n++
}

// has returns the flag of state i.
func (f *stateFlags) has(i uint32) bool { return f.w[i/64]>>(i%64)&1 != 0 }

// set sets the flag of state i to v.
func (f *stateFlags) set(i uint32, v bool) {
	if v {
		f.w[i/64] |= 1 << (i % 64)
	} else {
		f.w[i/64] &^= 1 << (i % 64)
	}
}

// succ is a system successor: the target state, the action (-1: the
// stutter of a state without enabled action) and, under thread tracking,
// the id of the permutation that canonicalised the target.
type succ struct {
	to   uint32
	act  int32
	perm uint32
}

// succSlot holds the successor list of one state in the cache: key is
// state<<1 | rest, plus one (0: empty slot).
type succSlot struct {
	key  uint64
	list []succ
}

// maxCache is the largest number of slots of the successor cache.
const maxCache = 1 << 16

type unit struct {
	strong   bool
	name     string
	threaded bool // checked per thread (cycle.go), not as a unit
}

func newSystem(prog *machine.Program, pn *plan, keep bool) *system {
	m := prog.Model
	s := &system{prog: prog, mach: prog.NewMachine(), store: newSystemStore(prog), key: pn.key, failure: map[uint32]*machine.ExecError{},
		compaction: compaction{from: noParent},
		reduction: reduction{canon: pn.canon, ample: pn.ample, rest: map[uint32]bool{},
			unp: make([]int64, prog.Slots()), packed: make([]uint64, prog.Words())},
		keptLists: keptLists{keep: keep, lastIdx: noParent, restAt: map[uint32][2]int64{}, succBig: map[uint32][2]int64{}, remach: prog.NewMachine()}}
	s.visitFn, s.stutFn = s.visit, s.stutter
	if s.canon != nil {
		s.canonFn = s.canon.Func()
	}
	var unitActs [][]int
	for d, f := range m.Fairness {
		for _, u := range f.Units {
			s.units = append(s.units, unit{strong: f.Strong, name: f.Name})
			s.unitDecl = append(s.unitDecl, d)
			unitActs = append(unitActs, u)
		}
	}
	if s.canon != nil && len(pn.threads) > 0 {
		s.threads = pn.threads
		types := s.canon.Types()
		for _, td := range s.threads {
			s.typeOf = append(s.typeOf, slices.Index(types, td.typ))
			for _, u := range td.units {
				s.units[u].threaded = true
			}
		}
		s.permIDs = map[string]uint32{}
		for _, t := range types {
			s.permBuf = append(s.permBuf, make([]int32, t.Size()))
			for i := range s.permBuf[len(s.permBuf)-1] {
				s.permBuf[len(s.permBuf)-1][i] = int32(i)
			}
		}
		s.internPerm() // the identity gets id 0
	}
	s.keepAct = keep && len(s.units) > 0
	s.act8 = len(m.Actions) < 255
	s.uw = (len(s.units) + 63) / 64
	s.actionUnits = make([]uint64, len(m.Actions)*s.uw)
	for k, acts := range unitActs {
		for _, a := range acts {
			s.actionUnits[a*s.uw+k/64] |= 1 << uint(k%64)
		}
	}
	return s
}

// newSystemStore returns the store of the system's states: one whose
// table slots hold the vectors when they are one word of at most 32 bits
// (a look-up then reads no record), else one of vectors of at least one
// word.
func newSystemStore(prog *machine.Program) *machine.Store {
	if prog.Words() == 0 {
		return machine.NewStore(1)
	}
	return machine.NewVectorStoreFor(prog)
}

// internPerm returns the id of the permutation in s.permBuf.
func (s *system) internPerm() uint32 {
	b := s.permKey[:0]
	for _, p := range s.permBuf {
		for _, x := range p {
			b = append(b, byte(x))
		}
		b = append(b, 0xff)
	}
	s.permKey = b
	id, ok := s.permIDs[string(b)] // no allocation: a lookup
	if !ok {
		id = uint32(len(s.perms))
		s.permIDs[string(b)] = id
		cp := make([][]int32, len(s.permBuf))
		for t, p := range s.permBuf {
			cp[t] = slices.Clone(p)
		}
		s.perms = append(s.perms, cp)
	}
	return id
}

// add stores the canonical form of t. Under thread tracking, s.lastPerm
// is the id of the permutation that canonicalised it.
func (s *system) add(t machine.State) (uint32, error) {
	vec := t
	if s.canon != nil {
		s.prog.Unpack(s.unp, t)
		if s.threads != nil {
			s.canon.Perm(s.unp, s.permBuf)
			s.lastPerm = s.internPerm()
		} else {
			s.canonFn(s.unp)
		}
		s.prog.Pack(s.packed, s.unp)
		vec = s.packed
	}
	if len(vec) == 0 {
		vec = []uint64{0}
	}
	if s.fp != nil {
		idx, isNew, err := s.fp.insert(vec, s.from)
		if err != nil {
			return 0, err
		}
		if isNew {
			s.added()
		}
		return idx, nil
	}
	return s.insert(vec, s.store.Hash(vec))
}

// insert stores vec, whose hash is h, in the store (not under hash
// compaction). The store is the system's alone, so the insert takes no
// shard lock (and looks the vector up once, not before and after one).
func (s *system) insert(vec []uint64, h uint64) (uint32, error) {
	idx, isNew, err := s.store.InsertHashed(vec, h, 0, false)
	if err != nil {
		return 0, err
	}
	if isNew {
		s.added()
	}
	return idx, nil
}

// added extends the per-state arrays for a state just stored.
func (s *system) added() {
	s.expanded.add()
	s.reduced.add()
	if s.keep {
		s.succAt.push(0)
	}
}

func (s *system) init() error {
	var addErr error
	batched := s.batched()
	err := s.mach.Init(func(_ int, t machine.State) {
		if batched {
			// Inserted in batches, in this order (batch.go).
			s.pendPush(0, t)
			if s.pcol.N == initBatch {
				s.flushInits(&addErr)
			}
			return
		}
		// The store holds only initial states yet: one seen before is
		// a duplicate (no quadratic scan of s.inits).
		n := s.len()
		idx, err := s.add(t)
		if err != nil {
			addErr = err
			return
		}
		if s.len() == n {
			return
		}
		s.inits.push(idx)
	})
	if batched {
		s.flushInits(&addErr)
	}
	if s.fp != nil {
		s.fp.initDone = true
	}
	if err != nil {
		return err
	}
	return addErr
}

// len returns the number of states stored.
func (s *system) len() int64 {
	if s.fp != nil {
		return s.fp.Len()
	}
	return s.store.Len()
}

// state returns the packed state idx in the layout the machine expects.
func (s *system) state(idx uint32) machine.State {
	if s.prog.Words() == 0 {
		return nil
	}
	if s.fp != nil {
		return s.compactState(idx)
	}
	return s.store.Vector(idx)
}

// expand expands state idx once: it computes its successors (those of
// its ample set under partial-order reduction, reduced[idx] then set when
// the set is proper, else all), adds them to the store, counts them and
// records the units they enable; the list stays in the cache
// ([system.succs] computes it again when asked for later). An execution
// failure is remembered and returned on every call.
func (s *system) expand(idx uint32) error {
	if s.expanded.has(idx) {
		if f := s.failure[idx]; f != nil {
			return f
		}
		return nil
	}
	var st machine.State
	if s.fp != nil {
		st = s.state(idx) // before expanded: the vector kept
	}
	s.expanded.set(idx, true)
	if s.fp != nil {
		s.from = idx
		defer s.released(idx)
	}
	var err error
	if s.pendAt < len(s.pend) && s.pend[s.pendAt].idx == idx {
		err = s.replay() // computed ahead by prefetch (batch.go): no vector read
	} else {
		if s.fp == nil {
			st = s.state(idx)
		}
		s.dropPending() // not the order prefetch foresaw
		err = s.compute(idx, st)
	}
	if err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			s.failure[idx] = ee
		}
		if errors.Is(err, machine.ErrInterrupted) {
			s.expanded.set(idx, false) // a later check expands it again
		}
		return err
	}
	if s.keep {
		// The kept list is the product's to read ([system.targets]): no
		// copy into the cache.
		s.setList(idx, s.appendSuccs(idx, false), int64(len(s.buf)))
	} else {
		s.fill(idx, false)
	}
	if s.buf[0] >= 0 { // the stutter is no transition and enables no unit
		s.transitions += int64(len(s.buf))
	}
	if s.uw == 0 { // no fairness units: nothing to keep
		return nil
	}
	en := make([]uint64, s.uw)
	for _, a := range s.buf {
		if a < 0 {
			continue
		}
		for w := 0; w < s.uw; w++ {
			en[w] |= s.actionUnits[int(a)*s.uw+w]
		}
	}
	if s.units8() {
		for len(s.enabled8) <= int(idx) {
			s.enabled8 = append(s.enabled8, 0)
		}
		s.enabled8[idx] = uint8(en[0])
		return nil
	}
	for int64(len(s.enabled)) < int64(idx+1)*int64(s.uw) {
		s.enabled = append(s.enabled, make([]uint64, s.uw)...)
	}
	copy(s.enabled[int(idx)*s.uw:], en)
	return nil
}

// compute fills s.buf/s.bufTo/s.bufPerm with the successors of state
// idx (st) by the machine, adding them to the store: those of its ample
// set under partial-order reduction (reduced[idx] then set when the set
// is proper), else all, or the stutter step of a state without enabled
// action.
func (s *system) compute(idx uint32, st machine.State) error {
	var acts []int // nil: every action
	if s.ample != nil {
		en, sub := s.ampleSet(s.mach, st)
		if s.mach.Interrupted() { // a guard's evaluation was cut short: en is wrong
			return machine.ErrInterrupted
		}
		if len(sub) < len(en) {
			acts = sub
		}
	}
	err := s.successors(s.mach, st, acts)
	if err == nil && acts != nil {
		if len(s.buf) > 0 {
			s.reduced.set(idx, true)
		} else { // the ample set yields no successor: take every action
			err = s.successors(s.mach, st, nil)
		}
	}
	if err == nil && len(s.buf) == 0 {
		err = s.stutterStep(s.mach, idx, st)
	}
	return err
}

// units8 reports whether the system has 1 to 8 fairness units: the units
// enabled in a state are then a byte of enabled8.
func (s *system) units8() bool { return s.uw == 1 && len(s.units) <= 8 }

// released drops the vector hash compaction kept for the state idx once
// its expansion is done (interrupted, it stays for the next).
func (s *system) released(idx uint32) {
	if s.expanded.has(idx) {
		s.fp.release(idx, &s.expanded)
	}
}

// stutterStep puts into buf the one successor of state idx (st), which
// has no enabled action: the state repeats forever. The past-time
// monitors keep evolving on the repetition (previously φ becomes φ
// here): the stutter step leads to the state with the monitors updated,
// which differs from this one at most as many times as previously nests,
// then loops on itself.
func (s *system) stutterStep(m *machine.Machine, idx uint32, st machine.State) error {
	s.stutTo, s.stutPrm, s.addErr = idx, 0, nil
	if len(s.prog.Model.Stutter) > 0 {
		err := m.Stutter(st, s.stutFn)
		if err == nil {
			err = s.addErr
		}
		if err != nil {
			return err
		}
	}
	s.buf = append(s.buf[:0], -1)
	s.bufTo = append(s.bufTo[:0], s.stutTo)
	s.bufPerm = append(s.bufPerm[:0], s.stutPrm)
	return nil
}

// stutter is the visit function of stutterStep (a method value taken
// once, so that the hot loop allocates no closure).
func (s *system) stutter(t machine.State) {
	s.stutTo, s.addErr = s.add(t)
	if s.threads != nil && s.canon != nil {
		s.stutPrm = s.lastPerm
	}
}

// ampleSet returns the enabled actions of st and the ample subset the
// partial-order reduction chooses, in buffers of s reused by the next
// call.
func (s *system) ampleSet(m *machine.Machine, st machine.State) (en, sub []int) {
	s.en = m.Enabled(st, s.en[:0])
	if len(s.en) == 0 {
		return nil, nil
	}
	s.prog.Unpack(s.unp, st)
	s.enSub = append(s.enSub[:0], s.en...)
	return s.en, s.ample(s.unp, s.enSub)
}

// successors fills s.buf/s.bufTo/s.bufPerm with the successors of st by
// acts (nil: every action), computed by m, adding them to the store.
func (s *system) successors(m *machine.Machine, st machine.State, acts []int) error {
	s.buf, s.bufTo, s.bufPerm = s.buf[:0], s.bufTo[:0], s.bufPerm[:0]
	s.addErr = nil
	var err error
	if acts == nil {
		err = m.Successors(st, s.visitFn)
	} else {
		err = m.SuccessorsOf(st, acts, s.visitFn)
	}
	if err == nil {
		err = s.addErr
	}
	return err
}

// visit is the visit function of successors (a method value taken once).
func (s *system) visit(action, _ int, t machine.State) {
	to, err := s.add(t)
	if err != nil {
		s.addErr = err
		return
	}
	s.buf = append(s.buf, int32(action))
	s.bufTo = append(s.bufTo, to)
	s.bufPerm = append(s.bufPerm, s.lastPerm)
}

// restOf computes, once, the successors of the expanded, reduced state
// idx by the enabled actions outside its ample set; the list stays in the
// cache ([system.succs] with rest).
func (s *system) restOf(idx uint32) error {
	if s.rest[idx] {
		return nil
	}
	if s.fp != nil {
		s.from = idx
	}
	if err := s.otherSuccessors(s.mach, idx); err != nil {
		return err
	}
	s.fill(idx, true)
	if s.keep {
		s.restAt[idx] = [2]int64{s.appendSuccs(idx, true), int64(len(s.buf))}
	}
	s.transitions += int64(len(s.buf))
	s.rest[idx] = true
	return nil
}

// otherSuccessors fills s.buf/s.bufTo/s.bufPerm with the successors of
// the reduced state idx by the enabled actions outside its ample set.
func (s *system) otherSuccessors(m *machine.Machine, idx uint32) error {
	st := s.state(idx)
	en, sub := s.ampleSet(m, st)
	s.others = s.others[:0]
	for _, a := range en {
		if !slices.Contains(sub, a) {
			s.others = append(s.others, a)
		}
	}
	return s.successors(m, st, s.others)
}

// succs returns the successors of the expanded state idx (rest: those
// outside its ample set, once restOf computed them), in the order its
// expansion found them: from the cache, else computed again. A state
// whose expansion failed has none (the product stops at the failure
// anyway). The list is valid until the next call.
func (s *system) succs(idx uint32, rest bool) []succ {
	if rest && !s.rest[idx] || !rest && s.failure[idx] != nil {
		return nil
	}
	if sl := s.slot(idx, rest); sl.key == uint64(idx)<<1+b2u(rest)+1 {
		return sl.list
	}
	if s.keep && s.keepAct {
		off, n := s.listAt(idx)
		if rest {
			r := s.restAt[idx]
			off, n = r[0], r[1]
		}
		s.bufTo, s.buf, s.bufPerm = s.decodeList(idx, rest, off, n, s.bufTo[:0], s.buf[:0], s.bufPerm[:0])
		if s.threads == nil {
			for range n {
				s.bufPerm = append(s.bufPerm, 0)
			}
		}
		return s.fill(idx, rest)
	}
	st := s.state(idx)
	var err error
	switch {
	case rest:
		err = s.otherSuccessors(s.remach, idx)
	case s.reduced.has(idx):
		_, sub := s.ampleSet(s.remach, st)
		err = s.successors(s.remach, st, sub)
	default:
		err = s.successors(s.remach, st, nil)
		if err == nil && len(s.buf) == 0 {
			err = s.stutterStep(s.remach, idx, st)
		}
	}
	if err != nil || !rest && len(s.buf) == 0 {
		panic(fmt.Sprintf("wrapcheck internal error: ltl: the successors of state %d computed again differ (%v)", idx, err))
	}
	return s.fill(idx, rest)
}

// slot returns the cache slot of the successors of idx (rest: those
// outside its ample set), growing the cache with the store up to
// maxCache slots (a grown cache starts empty); 64 when the lists are
// kept (a list is then copied, not computed, on a miss).
func (s *system) slot(idx uint32, rest bool) *succSlot {
	limit := maxCache
	if s.keep {
		limit = 64
	}
	if n, want := len(s.cache), 2*s.len(); n < limit && int64(n) < want {
		n = max(n, 64)
		for n < limit && int64(n) < want {
			n *= 2
		}
		s.cache = make([]succSlot, n)
	}
	key := uint64(idx)<<1 + b2u(rest)
	return &s.cache[machine.Mix(key)&uint64(len(s.cache)-1)]
}

// fill puts the successors in buf, those of state idx (rest: outside its
// ample set) that expand, restOf or succs just computed, into its cache
// slot, and returns the list there.
func (s *system) fill(idx uint32, rest bool) []succ {
	sl := s.slot(idx, rest)
	sl.key = uint64(idx)<<1 + b2u(rest) + 1
	sl.list = sl.list[:0]
	for i, a := range s.buf {
		sl.list = append(sl.list, succ{to: s.bufTo[i], act: a, perm: s.bufPerm[i]})
	}
	return sl.list
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// unitsEnabled returns the units enabled in the expanded state idx
// (valid until the next call).
func (s *system) unitsEnabled(idx uint32) []uint64 {
	if s.units8() {
		s.enBuf[0] = uint64(s.enabled8[idx])
		return s.enBuf[:]
	}
	return s.enabled[int(idx)*s.uw : int(idx+1)*s.uw]
}
