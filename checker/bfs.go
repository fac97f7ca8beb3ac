package checker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

const (
	ordBits  = verdict.OrdinalBits // successor ordinal bits of a tie-break key (verdict.Key.Word)
	ordMax   = verdict.MaxOrdinal
	noParent = 1 << 63 // link of an initial state
)

// stop reasons
const (
	runOK int32 = iota
	stopStates
	stopTimeout
	stopInterrupt
	stopMemory
	stopFull
)

// stopReasons maps the stop codes to the Result.Stop they report.
var stopReasons = [...]StopReason{NotStopped, StopStates, StopTimeout, StopInterrupted, StopMemory, StopStates}

// An entry is a state of the next level in one word: its tie-break key,
// with the parent's frontier position relative to the first position of
// its bucket (8 bits: a batch has at most 256 positions), and its store
// index. Sorted as integers, a bucket's entries are in key order.
func packEntry(rel int, ord uint64, idx uint32) uint64 {
	return uint64(rel)<<56 | ord<<32 | uint64(idx)
}

func unpackEntry(x uint64) (rel int, ord uint64, idx uint32) {
	return int(x >> 56), x >> 32 & ordMax, uint32(x)
}

// cand is a violation candidate found while expanding a level.
type cand struct {
	kind  Kind
	key   uint64 // tie-break key: (frontier position << ordBits) | ordinal
	state uint32 // invariant: the bad state; error, deadlock: the expanded state
	inv   int    // invariant index
	err   *machine.ExecError
	// atState: the trace ends in state (invariant, deadlock); otherwise
	// it ends with the failing action taken in state (or in init).
	atState bool
	init    bool // a failure of the init block
}

// checkID identifies a check for Options.Continue, which reports the
// first violation of each: an invariant (violated, or failing to
// evaluate), deadlock freedom, or a failing statement (an assertion or a
// runtime error of an action or of init) by its position.
type checkID struct {
	kind Kind
	inv  int // invariant index; -1 for the others
	pos  spec.Position
}

// id returns the check c violates.
func (c *cand) id() checkID {
	switch {
	case c.kind == Deadlock:
		return checkID{kind: Deadlock, inv: -1}
	case c.atState:
		return checkID{kind: c.kind, inv: c.inv}
	}
	return checkID{kind: c.kind, inv: -1, pos: c.err.Pos}
}

type explorer struct {
	ctx   context.Context
	opts  Options
	prog  *machine.Program
	store *machine.Store // the visited set; under HashCompact, the level being built
	n     int

	// Hash compaction (compact.go); fps is nil in the full mode.
	fps       *fpSet
	recs      records
	base      int64        // global index of frontier[0]
	promoted  atomic.Int64 // states with a global index
	initDone  bool
	vecs      *spill   // the vectors of the frontier, in order
	spillBufs [][]byte // per parallelFor slot
	levelMax  int      // the widest level the level store held

	invs   []int // checked invariants
	vacIdx []int // checked invariants with an antecedent
	// The conjuncts of the checked invariants, numbered in checking order
	// (invariant, then conjunct), and per slot the numbers of those that
	// read it, ascending: a successor re-checks only the conjuncts of the
	// slots its action changed. With at most maxConjBits conjuncts the
	// same sets are also kept as bit sets, conjWords words per slot
	// (slotConjBits), which changedConjuncts ORs instead of merging lists.
	conjRef      []conjRef
	conjs        []*machine.Conjunct // conjunct g is conjs[g]
	allConjs     []int32             // 0, 1, .. len(conjRef)-1: every conjunct, in order
	slotConjs    [][]int32
	conjWords    int      // words per slot in slotConjBits; 0: no bit sets
	slotConjBits []uint64 // slot sl's conjuncts: words sl*conjWords.., bit g%64 of word g/64
	bitSlot      []int32  // per bit of the packed vector: its slot, -1: none
	slotMask     []uint64 // per slot: its bits in its word (Program.SlotBits)
	// For changedConjunctWord, per word: the top bit of each slot's bits
	// (top) and the slots' other bits (below), and per top bit
	// (word*64+bit) its slot and the slot's conjuncts (one word).
	top, below []uint64
	topSlot    []topSlot
	// With generated code for the check (Program.HasNativeCheck), and
	// without Continue: the checked conjuncts as a set over the numbers
	// of Machine.CheckPacked (natSel, 0: not used), and per such number
	// the conjunct's number here (natLocal).
	natSel   uint64
	natLocal []int32

	// Options.Continue: the checks found violated so far (in the order
	// of violations), and per invariant whether it was found violated
	// (doneInv) or failing to evaluate (doneInvErr) in an earlier level,
	// so that later levels do not collect candidates for it. Written
	// between levels only.
	found      []checkID
	violations []*Violation
	doneInv    []bool
	doneInvErr []bool

	workers                 []*worker
	frontier                []uint32 // store indexes; nil under HashCompact
	nfront                  int      // states in the frontier
	spare                   []uint32
	pairs                   []uint64 // next level, bucketed and sorted by key (packEntry)
	buckets                 []int
	levelStart              uint32
	pending                 bool // links of states >= levelStart still hold keys
	parallel                bool // several workers insert into the store
	minParallel             int  // levels smaller than this are expanded by one worker
	depth                   int
	maxDepth                int
	batch                   int
	batchMul                uint64 // batchMultiplier(batch)
	nbatch                  int
	next                    atomic.Int64
	stop                    atomic.Int32
	peakHeap                atomic.Uint64
	progDepth, progFrontier atomic.Int64 // for Progress
	start                   time.Time

	// The store indexes of the level being built: those the workers'
	// index blocks left unused (lo<<32 | hi), and the ranges of the
	// others (lo, hi pairs), for nextFrontier.
	holes []uint64
	segs  []uint32
}

type worker struct {
	_ [64]byte // no other object's fields on the line of the first ones

	e        *explorer
	m        *machine.Machine
	vec      []uint64
	parent   []uint64 // the packed state being expanded
	pos      int
	trans    int64
	transPub int64 // trans as of the last batch, for Progress (atomic)
	fired    []int64
	sawOld   bool
	// made counts the words of the states this worker stored since it
	// last compared the heap with the memory budget (madeStates); cut is
	// set when it dropped successors because the search stops (the level
	// is then incomplete, as when an evaluation is interrupted).
	made int
	cut  bool

	enabled, ampleIn []int
	// Under HashCompact, the vectors of the batch being expanded, from
	// frontier position batchStart on.
	batchVecs  []uint64
	batchBuf   []byte
	batchStart int
	pendVec    []uint64
	pend       []pending
	blk        machine.IndexBlock // store indexes for new states, while parallel
	sink       uint64
	// deferred holds the successors (vectors in deferredVec, their
	// parents' in deferredPar) whose shards were being grown by another
	// worker when this one flushed them (insertParallel), to be inserted at
	// a later flush or at the end of the level; spare holds
	// retryDeferred's second set of arrays.
	deferred                 []pending
	deferredVec, deferredPar []uint64
	spare                    struct {
		ps         []pending
		vecs, pars []uint64
	}
	deferTick int // testDefer's count

	// col collects the successors without a call of onSucc each
	// (machine.Collector), unless symmetry is on (collecting is then
	// false): col.Vecs and col.Succs are the arrays of pendVec and pend,
	// which hold col.N of them once flush syncs them (syncPend).
	col        machine.Collector
	collecting bool

	_ [128]byte // keep workers' hot fields on separate cache lines

	deadlock  int // smallest frontier position of a deadlock, -1: none
	errs      []cand
	bad       []cand
	badInit   int // level 0: init ordinal of the first initial state found bad, -1: none
	witnessed []bool

	// checkState's candidate conjuncts: stamp[g] == stampCur marks g as
	// collected for the current state (conjBits: as a bit set, when the
	// explorer keeps slotConjBits).
	stamp    []uint32
	stampCur uint32
	conjBits []uint64
	cands    []int32
	candWord [64]int32 // changedConjunctWord's result
	// changed lists the slots in which the state being checked differs
	// from its parent (changedConjuncts fills it). During a flush, the
	// check area holds the parent once checkReady is set, and a new state
	// is checked by writing its changed slots there and restoring them
	// after (checkState): no conjunct unpacks its slots.
	changed    []int32
	checkReady bool
	// checkVec is the packed state the check area holds unpacked when
	// checkHeld (readyCheck then decodes only the slots in which the next
	// parent differs from it); whatever else writes the check area
	// (canonical, LoadedTerminal) clears checkHeld.
	checkVec   []uint64
	checkHeld  bool
	witnessedN int  // the entries of witnessed set
	loaded     bool // flush: the action state is the loaded parent

	_ [64]byte // nor on the line of the last ones
}

// Run explores the state space of m breadth-first and checks every
// invariant (or those named in opts.Only), assertion, runtime error and,
// unless opts.NoDeadlock, deadlock. It returns a Result for every outcome
// of the search, including a violation and a search stopped by a limit or
// by ctx; the error reports bad options or an internal failure.
func Run(ctx context.Context, m *spec.Model, opts Options) (*Result, error) {
	return run(ctx, m, opts, 64)
}

// run is Run with the smallest level expanded in parallel (tests force
// parallel expansion of tiny levels with 1).
func run(ctx context.Context, m *spec.Model, opts Options, minParallel int) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return runShortest(ctx, prog, opts, minParallel)
}

// RunProgram is [Run] on a model compiled by the caller, so that one
// compilation serves every search of the model and its rendering.
func RunProgram(ctx context.Context, prog *machine.Program, opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	return runShortest(ctx, prog, opts, 64)
}

// check rejects the limits no search can take.
func (opts Options) check() error {
	if opts.Workers < 0 || opts.MaxStates < 0 || opts.MaxDepth < 0 || opts.MemoryBudget < 0 {
		return errors.New("checker: negative limit in Options")
	}
	return nil
}

// runProgram searches the state space of a compiled model.
func runProgram(ctx context.Context, prog *machine.Program, opts Options, minParallel int) (*Result, error) {
	m := prog.Model
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ninv := len(m.Invariants)
	e := &explorer{ctx: ctx, opts: opts, prog: prog, n: prog.Slots(), minParallel: minParallel,
		doneInv: make([]bool, ninv), doneInvErr: make([]bool, ninv)}
	if err := e.selectInvariants(); err != nil {
		return nil, err
	}
	e.store = machine.NewStoreFor(prog)
	e.store.SetWriters(workers)
	if opts.HashCompact {
		e.fps = newFPSet()
		if err := e.openSpills(); err != nil {
			return nil, err
		}
		defer e.closeSpills()
		e.spillBufs = make([][]byte, workers)
	}
	e.workers = make([]*worker, workers)
	for i := range e.workers {
		// vec is written at every successor: made as small slices one
		// after the other, the workers' vectors would share a cache line.
		w := &worker{e: e, m: prog.NewMachine(), vec: machine.Padded[uint64](prog.Words()), checkVec: machine.Padded[uint64](prog.Words()),
			changed: machine.Padded[int32](prog.Slots())[:0], cands: machine.Padded[int32](len(e.conjRef))[:0],
			fired: machine.Padded[int64](len(m.Actions)), witnessed: make([]bool, ninv), deadlock: -1}
		if opts.Canon == nil {
			w.collecting = true
			w.col = machine.Collector{Vecs: machine.Padded[uint64](touchBatch * prog.Words()), Succs: machine.Padded[pending](touchBatch),
				MaxOrd: ordMax, Limit: touchBatch, Full: w.colFull, Fired: w.fired}
		}
		w.onSuccs()
		w.m.SetInterrupt(e.interrupted)
		e.workers[i] = w
	}
	return e.run()
}

// interrupted is the workers' machines' interrupt function: it reports
// whether the search stops for the context or the memory budget, so that
// one long evaluation (a quantifier over a large domain, the branches of
// a large choose) ends within a fraction of a second. The level it
// interrupts is incomplete: its violations are not reported.
func (e *explorer) interrupted() bool {
	if r := e.ctxStop(); r != runOK {
		e.stop.CompareAndSwap(runOK, r)
	}
	switch e.stop.Load() {
	case stopTimeout, stopInterrupt, stopMemory:
		return true
	}
	return false
}

// halted reports whether a worker's machine was interrupted during the
// current level.
func (e *explorer) halted() bool {
	for _, w := range e.workers {
		if w.m.Interrupted() || w.cut {
			return true
		}
	}
	return false
}

// heapCheckWords is how many words of new states (vector and link) a
// worker stores between two comparisons of the heap with the memory
// budget: 512 KiB, a few thousand states of a few words (the comparison
// costs less than a microsecond), or a few of a state of thousands of
// words. The monitor's samples every 100ms alone let one level, or the
// successors of one state (a choose of 100,000 branches over an array of
// 100,000 elements), take the heap far past the budget between two.
const heapCheckWords = 1 << 16

// madeStates counts n new states of nw words stored by w, and compares the
// heap with the memory budget every heapCheckWords words of them: the
// search stops (stopMemory) once the heap is over it.
func (w *worker) madeStates(n, nw int) {
	if w.made += n * (nw + 1); w.made < heapCheckWords {
		return
	}
	w.made = 0
	e := w.e
	if b := e.opts.MemoryBudget; b > 0 && e.sampleHeap() > uint64(b) {
		e.stop.CompareAndSwap(runOK, stopMemory)
	}
}

// stopping reports whether the search stops for a reason that cuts the
// level short (the deadline, a signal, the memory budget): successors
// are then dropped instead of stored, so that memory stops growing at
// once, even within one state's expansion of many successors.
func (e *explorer) stopping() bool {
	switch e.stop.Load() {
	case stopTimeout, stopInterrupt, stopMemory:
		return true
	}
	return false
}

func (e *explorer) selectInvariants() error {
	invs, _, unknown := e.prog.Model.Select(e.opts.Only)
	if unknown != "" {
		return fmt.Errorf("checker: Options.Only: no invariant or property named %s", unknown)
	}
	e.invs = invs
	for _, i := range e.invs {
		if e.prog.HasAntecedent(i) {
			e.vacIdx = append(e.vacIdx, i)
		}
	}
	e.indexConjuncts()
	return nil
}

// conjRef names conjunct k of invariant inv.
type conjRef struct{ inv, k int32 }

// indexConjuncts builds conjRef, slotConjs and bitSlot.
func (e *explorer) indexConjuncts() {
	p := e.prog
	e.slotConjs = make([][]int32, p.Slots())
	for _, i := range e.invs {
		for k, cj := range p.Conjuncts(i) {
			g := int32(len(e.conjRef))
			e.conjRef = append(e.conjRef, conjRef{int32(i), int32(k)})
			e.conjs = append(e.conjs, &p.Conjuncts(i)[k])
			e.allConjs = append(e.allConjs, g)
			for _, sl := range cj.Slots() {
				e.slotConjs[sl] = append(e.slotConjs[sl], g)
			}
		}
	}
	if n := len(e.conjRef); n <= maxConjBits {
		cw := (n + 63) / 64
		e.conjWords = cw
		e.slotConjBits = make([]uint64, p.Slots()*cw)
		for sl, gs := range e.slotConjs {
			for _, g := range gs {
				e.slotConjBits[sl*cw+int(g)/64] |= 1 << (uint(g) % 64)
			}
		}
	}
	if p.HasNativeCheck() && !e.opts.Continue {
		// CheckPacked numbers the conjuncts of every invariant in model
		// order; e.invs is ascending, so its order is checkState's.
		// base[i] is the number of invariant i's first conjunct.
		base := make([]int, len(p.Model.Invariants)+1)
		for i := range p.Model.Invariants {
			base[i+1] = base[i] + len(p.Conjuncts(i))
		}
		e.natLocal = make([]int32, base[len(base)-1])
		for n := range e.natLocal {
			e.natLocal[n] = -1
		}
		for g, r := range e.conjRef {
			n := base[r.inv] + int(r.k)
			e.natSel |= 1 << uint(n)
			e.natLocal[n] = int32(g)
		}
	}
	e.bitSlot = make([]int32, p.Words()*64)
	for b := range e.bitSlot {
		e.bitSlot[b] = -1
	}
	e.slotMask = make([]uint64, p.Slots())
	e.top = make([]uint64, p.Words())
	e.below = make([]uint64, p.Words())
	e.topSlot = make([]topSlot, p.Words()*64)
	for i := range p.Slots() {
		word, mask := p.SlotBits(i)
		e.slotMask[i] = mask
		for b := 0; b < 64; b++ {
			if mask>>b&1 != 0 {
				e.bitSlot[word*64+b] = int32(i)
			}
		}
		if mask != 0 {
			t := 63 - bits.LeadingZeros64(mask)
			e.top[word] |= 1 << t
			e.below[word] |= mask &^ (1 << t)
			e.topSlot[word*64+t].slot = int32(i)
			if e.conjWords == 1 {
				e.topSlot[word*64+t].conjs = e.slotConjBits[i]
			}
		}
	}
}

// topSlot is a slot as changedConjunctWord finds it from its top bit.
type topSlot struct {
	conjs uint64 // slotConjBits of the slot, with one word of conjuncts
	slot  int32
}

// changedTops returns the top bits (top) of the slots in which the
// difference d of two packed words has a bit set: adding the all-ones
// below each top bit (below) to d's bits there carries into the top bit
// exactly when one of them is set, and never past it.
func changedTops(d, top, below uint64) uint64 {
	return ((d & below) + below | d) & top
}

func (e *explorer) run() (*Result, error) {
	e.start = time.Now()
	if b := e.opts.MemoryBudget; b > 0 {
		// Let the garbage collector work harder as the heap nears the
		// budget, instead of letting garbage (old shard tables, frontier
		// slices) take the process past it before the monitor sees it.
		old := debug.SetMemoryLimit(b + b/8)
		defer debug.SetMemoryLimit(old)
	}
	if e.fps != nil {
		// The fingerprint tables are most of the heap and all that grows;
		// collect the old tables of a growth wave before the heap doubles.
		old := debug.SetGCPercent(compactGCPercent)
		defer debug.SetGCPercent(old)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go e.monitor(done, &wg)
	res, err := e.search()
	close(done)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if ioErr := e.spillErr(); ioErr != nil {
		// The temporary files are the search's own storage, as the
		// memory is: once one fails, reads return zeros and the search
		// ends after the level, so nothing it found stands, but the
		// figures of the states explored do. Reported as incomplete.
		res = &Result{Verdict: Unknown, Stop: StopIO, StopErr: ioErr}
	}
	e.sampleHeap()
	res.Stats = e.stats()
	res.Coverage = e.coverage()
	if e.fps != nil {
		res.Notes = append(res.Notes, e.compactNote(res.Stats.States))
	}
	return res, nil
}

func (e *explorer) search() (*Result, error) {
	if r := e.ctxStop(); r != runOK {
		return &Result{Verdict: Unknown, Stop: stopReasons[r]}, nil
	}
	// Level 0: the initial states, in init-branch order.
	w := e.workers[0]
	m := w.m
	m.OnState(w.onInit)
	w.badInit = -1
	initOK := m.RunInit()
	w.onSuccs()
	if m.Interrupted() || w.cut {
		// The initial states are not all known: nothing can be said.
		return &Result{Verdict: Unknown, Stop: stopReasons[e.stop.Load()]}, nil
	}
	var first *Violation
	switch {
	case e.opts.Continue:
		// Every bad initial state (its key is its init ordinal) and the
		// first failing init branch, in init-branch order.
		cs := append([]cand(nil), w.bad...)
		if !initOK {
			ex := m.Failure()
			cs = append(cs, cand{kind: ex.Kind, err: ex, init: true, key: uint64(m.FailOrdinal())})
		}
		slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.key, b.key) })
		first = e.record(cs)
	case !initOK && (len(w.bad) == 0 || m.FailOrdinal() < w.badInit):
		// A failing init branch makes no initial state; the others do,
		// and are explored. The first of the failures and bad initial
		// states, in init-branch order, is level 0's violation.
		ex := m.Failure()
		first = e.violationOf(cand{kind: ex.Kind, err: ex, init: true})
	case len(w.bad) > 0:
		first = e.violationOf(w.bad[0]) // the first initial state found bad
	}
	m.ClearFailure()
	w.bad = w.bad[:0]
	e.nfront = len(e.frontier)
	if e.fps != nil {
		e.promoteInit()
	}
	// first is the violation to report: the one of the shallowest level
	// that has any, chosen when that level is complete. The search stops
	// there unless Continue, which goes on so that the stats describe the
	// whole reachable state space and records the first violation of every
	// other check; later levels cannot change first.
	// end returns the result once the search stops for reason
	// (NotStopped when the state space is exhausted).
	end := func(reason StopReason) (*Result, error) {
		switch {
		case first != nil:
			res := &Result{Verdict: Violated, Violation: first, Violations: e.violations}
			if !e.opts.Continue {
				res.Violations = []*Violation{first}
				if reason == NotStopped && e.nfront > 0 {
					res.Stop = StopAtViolation
				}
			}
			return res, nil
		case reason != NotStopped:
			return &Result{Verdict: Unknown, Stop: reason}, nil
		}
		return &Result{Verdict: Holds}, nil
	}
	for {
		if first != nil && !e.opts.Continue {
			return end(NotStopped)
		}
		if r := e.stop.Load(); r != runOK {
			return end(stopReasons[r])
		}
		if e.nfront == 0 {
			return end(NotStopped)
		}
		if e.opts.MaxDepth > 0 && e.depth >= e.opts.MaxDepth {
			return end(StopDepth)
		}
		e.expandLevel()
		if e.store.End() > e.levelStart {
			e.maxDepth = e.depth + 1
		}
		if e.halted() {
			// An interrupted evaluation's outcome is unknown: the
			// level's failures and bad states may be its artefacts.
			return end(stopReasons[e.stop.Load()])
		}
		if cs := e.candidates(); len(cs) > 0 {
			if e.opts.Continue {
				if v := e.record(cs); first == nil {
					first = v
				}
			} else if first == nil {
				first = e.violationOf(cs[0])
			}
		}
		if r := e.stop.Load(); r != runOK {
			return end(stopReasons[r])
		}
		e.nextFrontier()
	}
}

// onInit stores an initial state.
func (w *worker) onInit(m *machine.Machine) {
	if m.Interrupted() {
		return
	}
	e := w.e
	if e.stopping() {
		w.cut = true
		m.PollSoon()
		return
	}
	src := w.canonical(m)
	e.prog.Pack(w.vec, src)
	ord := m.Ordinal()
	link := uint64(noParent)
	if e.fps != nil {
		link = uint64(min(ord, ordMax)) // the init ordinal, for the trace record
	}
	idx, isNew, err := e.store.Insert(w.vec, link)
	if err != nil {
		e.stop.CompareAndSwap(runOK, stopFull)
		return
	}
	if isNew {
		w.madeStates(1, len(w.vec))
		e.frontier = append(e.frontier, idx)
		bad := len(w.bad)
		w.checkState(m, idx, w.vec, nil)
		if len(w.bad) > bad && w.badInit < 0 {
			w.badInit = ord
		}
		for i := bad; i < len(w.bad); i++ {
			w.bad[i].key = uint64(ord)
		}
	}
}

// canonical returns the state to store for the new state in m.Slots():
// the check area holds a copy, canonicalised when symmetry is on.
func (w *worker) canonical(m *machine.Machine) []int64 {
	w.checkHeld = false
	cs := m.CheckSlots()
	copy(cs, m.Slots())
	if w.e.opts.Canon != nil {
		w.e.opts.Canon(cs)
	}
	return cs
}

// checkState checks the invariants of a new state and tracks their
// antecedents. The state is vec; parent is the packed state it was
// generated from, nil for an initial state, which the check area then
// holds unpacked. Conjuncts that read no bit changed from parent hold, as
// they held in parent. For a successor, the check area is made to hold
// parent unpacked (readyCheck), and vec's changed slots are written over
// it for the check and restored after it, so that the check unpacks only
// the slots that changed. With generated code for the check
// (Machine.CheckPacked: the compiled mode) and every antecedent
// witnessed, a successor's changed conjuncts are evaluated over vec
// itself instead, without the check area.
func (w *worker) checkState(m *machine.Machine, idx uint32, vec, parent []uint64) {
	e := w.e
	// A state is only expanded when it satisfies every invariant, so a
	// conjunct that reads no slot changed from parent holds.
	if parent != nil && e.natSel != 0 && w.witnessedN == len(e.vacIdx) {
		// Generated: the changed conjuncts evaluated over vec itself,
		// the check area untouched.
		if g, ok := m.CheckPacked(vec, parent, e.natSel); g >= 0 {
			w.badConjunct(m, idx, e.natLocal[g], ok)
		}
		return
	}
	gs := e.allConjs
	if parent != nil {
		gs = w.changedConjuncts(vec, parent)
		if len(gs) == 0 && w.witnessedN == len(e.vacIdx) {
			return
		}
		w.readyCheck(m, parent)
		m.UnpackCheckSlots(vec, w.changed)
	}
	// Each conjunct is evaluated in checking order; the first false or
	// failing one records the state's violation and ends the check
	// (under Continue, checkContinue checks on).
	if !e.opts.Continue {
		cjs := e.conjs
		for _, g := range gs {
			if v, ok := m.EvalConjunct(cjs[g]); !ok || v == 0 {
				w.badConjunct(m, idx, g, ok)
				break
			}
		}
	} else {
		w.checkContinue(m, idx, gs)
	}
	if w.witnessedN < len(e.vacIdx) {
		for _, i := range e.vacIdx {
			if !w.witnessed[i] && m.Antecedent(i) {
				w.witnessed[i] = true
				w.witnessedN++
			}
		}
	}
	if parent != nil {
		m.UnpackCheckSlots(parent, w.changed)
	}
}

// badConjunct records that conjunct g is false (ok) or fails to
// evaluate in the state idx being checked.
func (w *worker) badConjunct(m *machine.Machine, idx uint32, g int32, ok bool) {
	e := w.e
	inv := e.conjRef[g].inv
	if !ok {
		ex := m.PredFailure()
		if !e.doneInvErr[inv] {
			w.bad = append(w.bad, cand{kind: RuntimeError, state: idx, inv: int(inv), err: ex, atState: true})
		}
	} else if !e.doneInv[inv] {
		w.bad = append(w.bad, cand{kind: Invariant, state: idx, inv: int(inv), atState: true})
	}
}

// checkContinue is checkState's loop over the conjuncts gs under
// Options.Continue: an invariant's first false or failing conjunct ends
// the check of that invariant only, and an invariant found violated in
// an earlier level is checked for runtime errors alone.
func (w *worker) checkContinue(m *machine.Machine, idx uint32, gs []int32) {
	e := w.e
	badInv := int32(-1)
	for _, g := range gs {
		inv := e.conjRef[g].inv
		if inv == badInv || e.doneInv[inv] && e.doneInvErr[inv] {
			continue
		}
		if v, ok := m.EvalConjunct(e.conjs[g]); !ok || v == 0 {
			badInv = inv
			w.badConjunct(m, idx, g, ok)
		}
	}
}

// readyCheck makes the check area hold parent unpacked, once per parent
// in a flush: only the slots in which parent differs from the state the
// check area holds (checkVec), else a copy of the action state when that
// is the loaded parent (flush at the end of an expansion), else parent
// unpacked.
func (w *worker) readyCheck(m *machine.Machine, parent []uint64) {
	if w.checkReady {
		return
	}
	w.checkReady = true
	switch {
	case w.checkHeld:
		m.UnpackCheckChanged(parent, w.checkVec)
	case w.loaded:
		copy(m.CheckSlots(), m.Slots())
	default:
		m.UnpackCheck(parent)
	}
	cv := w.checkVec[:len(parent)]
	for i, x := range parent {
		cv[i] = x
	}
	w.checkHeld = true
}

// maxConjBits is the most conjuncts for which the explorer keeps the
// conjuncts of each slot as a bit set: a few words per slot to OR, and
// as many to scan per state.
const maxConjBits = 256

// changedConjuncts returns, in checking order, the conjuncts that read a
// slot in which vec differs from parent.
func (w *worker) changedConjuncts(vec, parent []uint64) []int32 {
	switch cw := w.e.conjWords; {
	case cw == 1:
		return w.changedConjunctWord(vec, parent) // one call, not two
	case cw > 0:
		return w.changedConjunctBits(vec, parent)
	}
	return w.changedConjunctList(vec, parent)
}

// changedConjunctBits is changedConjuncts over slotConjBits: the union
// of the changed slots' sets, read out in ascending order, needs neither
// stamps nor a sort.
func (w *worker) changedConjunctBits(vec, parent []uint64) []int32 {
	e := w.e
	cw := e.conjWords
	if cw == 1 {
		return w.changedConjunctWord(vec, parent)
	}
	if len(w.conjBits) != cw {
		w.conjBits = machine.Padded[uint64](cw)
	}
	acc := w.conjBits
	ch := w.changed[:0]
	for wd := range vec {
		d := vec[wd] ^ parent[wd]
		for d != 0 {
			b := bits.TrailingZeros64(d)
			sl := e.bitSlot[wd*64+b]
			if sl < 0 {
				d &= d - 1
				continue
			}
			d &^= e.slotMask[sl]
			ch = append(ch, sl)
			o := int(sl) * cw
			for j, x := range e.slotConjBits[o : o+cw] {
				acc[j] |= x
			}
		}
	}
	w.changed = ch
	c := w.cands[:0]
	for j, x := range acc {
		for x != 0 {
			c = append(c, int32(j*64+bits.TrailingZeros64(x)))
			x &= x - 1
		}
		acc[j] = 0
	}
	w.cands = c
	return c
}

// changedConjunctWord is changedConjunctBits for at most 64 conjuncts:
// one word to OR per changed slot (found from its top bit, changedTops),
// read out into a fixed array.
func (w *worker) changedConjunctWord(vec, parent []uint64) []int32 {
	e := w.e
	var acc uint64
	ch := w.changed[:0]
	parent = parent[:len(vec)]
	for wd, x := range vec {
		c := changedTops(x^parent[wd], e.top[wd], e.below[wd])
		ts := e.topSlot[wd*64 : wd*64+64]
		for ; c != 0; c &= c - 1 {
			t := &ts[bits.TrailingZeros64(c)&63]
			ch = append(ch, t.slot)
			acc |= t.conjs
		}
	}
	w.changed = ch
	c := &w.candWord
	n := 0
	for ; acc != 0; acc &= acc - 1 {
		c[n&63] = int32(bits.TrailingZeros64(acc))
		n++
	}
	return c[:n]
}

// changedConjunctList is changedConjuncts over slotConjs, for models
// with more than maxConjBits conjuncts.
func (w *worker) changedConjunctList(vec, parent []uint64) []int32 {
	e := w.e
	if len(w.stamp) != len(e.conjRef) {
		w.stamp = machine.Padded[uint32](len(e.conjRef))
	}
	w.stampCur++
	if w.stampCur == 0 {
		clear(w.stamp)
		w.stampCur = 1
	}
	cur := w.stampCur
	c := w.cands[:0]
	ch := w.changed[:0]
	sorted := true
	for wd := range vec {
		d := vec[wd] ^ parent[wd]
		for d != 0 {
			b := bits.TrailingZeros64(d)
			sl := e.bitSlot[wd*64+b]
			if sl < 0 {
				d &= d - 1
				continue
			}
			d &^= e.slotMask[sl]
			ch = append(ch, sl)
			for _, g := range e.slotConjs[sl] {
				if w.stamp[g] != cur {
					w.stamp[g] = cur
					sorted = sorted && (len(c) == 0 || c[len(c)-1] < g)
					c = append(c, g)
				}
			}
		}
	}
	if !sorted {
		slices.Sort(c)
	}
	w.changed = ch
	w.cands = c
	return c
}

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
	key := uint64(w.pos)<<ordBits | uint64(min(m.Ordinal(), ordMax))
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
	for i, pd := range w.pend {
		vec := w.pendVec[i*nw : (i+1)*nw]
		if pos := int(pd.Key >> ordBits); pos != cur {
			// The first successor of another parent: the check area is
			// made ready for it at its first new state.
			cur = pos
			if pos != w.pos {
				parent = w.frontierVector(pos)
			} else {
				parent = w.parent
			}
			w.checkReady = false
			w.loaded = loaded && pos == w.pos
		}
		if fps != nil && fps.has(fingerprint(pd.H)) {
			w.sawOld = true // a state of an earlier level, or one colliding with it
			continue
		}
		var idx uint32
		var isNew bool
		var err error
		if par {
			if idx, isNew, err = w.insertParallel(pd, vec, parent); err == machine.ErrGrowing {
				continue // set aside
			}
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
		case idx < e.levelStart:
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

// expand generates the successors of the state at frontier position p.
func (w *worker) expand(p int) {
	e := w.e
	m := w.m
	w.pos = p
	s := e.frontierIdx(p)
	w.parent = w.frontierVector(p)
	m.Load(w.parent)
	w.col.Parent = w.parent
	w.col.Key = uint64(p) << ordBits
	// A failing branch makes no successor and is a violation; the other
	// branches and actions still make theirs, so that the figures are
	// those of the reachable state space whatever the verdict.
	if e.opts.Ample == nil {
		// The actions left out of Candidates make nothing here.
		if e.prog.HasNativeExpand() { // generated: no call per action
			for a := m.RunCandidates(0); a >= 0; a = m.RunCandidates(a) {
				w.failed(p, s)
			}
		} else {
			for i, x := range m.Candidates() {
				for ; x != 0; x &= x - 1 {
					if !m.RunAction(i*64 + bits.TrailingZeros64(x)) {
						w.failed(p, s)
					}
				}
			}
		}
		w.loaded = true // the action state is the loaded parent again
		if w.npend() >= flushAt {
			w.flushPend()
		}
	} else {
		w.expandAmple(p, s)
	}
	if m.Ordinal() == 0 && !e.opts.NoDeadlock { // a failing branch counts in the ordinals
		if w.deadlock < 0 && !w.loadedTerminal(m) {
			w.deadlock = p
		}
	}
}

// loadedTerminal is m.LoadedTerminal, which overwrites the check area.
func (w *worker) loadedTerminal(m *machine.Machine) bool {
	w.checkHeld = false
	return m.LoadedTerminal()
}

func (w *worker) expandAmple(p int, s uint32) {
	e := w.e
	m := w.m
	w.enabled = w.enabled[:0]
	for a := range e.prog.Actions() {
		if m.Guard(a) {
			w.enabled = append(w.enabled, a)
		}
	}
	if len(w.enabled) == 0 {
		return
	}
	w.ampleIn = append(w.ampleIn[:0], w.enabled...)
	sub := e.opts.Ample(m.Slots(), w.ampleIn)
	w.sawOld = false
	for _, a := range sub {
		if !m.RunAction(a) {
			w.failed(p, s)
		}
	}
	w.loaded = true // the action state is the loaded parent again
	w.flushPend()
	if len(sub) < len(w.enabled) && (m.Ordinal() == 0 || w.sawOld) {
		j := 0
		for _, a := range w.enabled {
			for j < len(sub) && sub[j] < a {
				j++
			}
			if j < len(sub) && sub[j] == a {
				continue
			}
			if !m.RunAction(a) {
				w.failed(p, s)
			}
		}
		w.loaded = true // the action state is the loaded parent again
		w.flushPend()
	}
}

// failed records the raised failure of the state at position p.
func (w *worker) failed(p int, s uint32) {
	m := w.m
	ex := m.Failure()
	key := uint64(p)<<ordBits | uint64(min(m.FailOrdinal(), ordMax))
	m.ClearFailure()
	c := cand{kind: ex.Kind, key: key, state: s, err: ex}
	if w.e.opts.Continue {
		// One candidate per check and level (the smallest key), none for
		// a check found violated in an earlier level.
		id := c.id()
		if slices.Contains(w.e.found, id) {
			return
		}
		for i := range w.errs {
			if w.errs[i].id() == id {
				if key < w.errs[i].key {
					w.errs[i] = c
				}
				return
			}
		}
	}
	w.errs = append(w.errs, c)
}

func (e *explorer) expandLevel() {
	n := e.nfront
	e.progDepth.Store(int64(e.depth))
	e.progFrontier.Store(int64(n))
	e.levelStart = e.store.End()
	e.holes = e.holes[:0]
	e.pending = true
	nw := len(e.workers)
	e.batch = min(max(n/(nw*8), 1), 256)
	e.batchMul = batchMultiplier(e.batch)
	e.nbatch = (n + e.batch - 1) / e.batch
	e.next.Store(0)
	if nw == 1 || n < e.minParallel {
		e.parallel = false
		e.workers[0].work()
		return
	}
	e.parallel = true
	var wg sync.WaitGroup
	for _, w := range e.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
	// The level's states take their positions from their keys
	// (nextFrontier), not from their indexes: the blocks' unused indexes
	// become holes, whatever the order of the workers.
	for _, w := range e.workers {
		if lo, hi := e.store.Release(&w.blk); lo < hi {
			e.holes = append(e.holes, uint64(lo)<<32|uint64(hi))
		}
	}
}

func (w *worker) work() {
	e := w.e
	n := e.nfront
	for e.stop.Load() == runOK {
		b := int(e.next.Add(1) - 1)
		if b >= e.nbatch {
			break
		}
		p0, p1 := b*e.batch, min(n, (b+1)*e.batch)
		if e.fps != nil {
			w.loadBatch(p0, p1)
		}
		for p := p0; p < p1; p++ {
			w.expand(p)
		}
		if w.npend() > 0 {
			w.flushPend() // w.loaded: the last expand left its state loaded
		}
		atomic.StoreInt64(&w.transPub, w.trans+w.col.Trans)
		e.checkLimits()
	}
	if len(w.deferred) > 0 {
		if e.stop.Load() == runOK {
			w.retryDeferred(true) // the level's last growths: wait for them
		} else {
			// The search ends with this level; its figures are those of
			// the states stored when it stopped.
			w.deferred, w.deferredVec, w.deferredPar = w.deferred[:0], w.deferredVec[:0], w.deferredPar[:0]
		}
	}
}

func (e *explorer) ctxStop() int32 {
	select {
	case <-e.ctx.Done():
		if errors.Is(e.ctx.Err(), context.DeadlineExceeded) {
			return stopTimeout
		}
		return stopInterrupt
	default:
		return runOK
	}
}

func (e *explorer) checkLimits() {
	if r := e.ctxStop(); r != runOK {
		e.stop.CompareAndSwap(runOK, r)
	}
	n := e.states()
	if e.opts.MaxStates > 0 && n > e.opts.MaxStates {
		e.stop.CompareAndSwap(runOK, stopStates)
	}
	if e.fps != nil && n >= machine.MaxStates {
		e.stop.CompareAndSwap(runOK, stopFull)
	}
}

// candidates returns, after a level, the violations found in it in the
// order the search picks them: a deadlock in the level (shortest, the
// smallest frontier position), then the failures and bad successors by
// their (parent position, ordinal) key. It clears the workers' lists.
func (e *explorer) candidates() []cand {
	dl := -1
	var cs []cand
	for _, w := range e.workers {
		if w.deadlock >= 0 && (dl < 0 || w.deadlock < dl) {
			dl = w.deadlock
		}
		w.deadlock = -1
		cs = append(cs, w.errs...)
		for i := range w.bad {
			c := w.bad[i]
			c.key = atomic.LoadUint64(e.store.Link(c.state))
			cs = append(cs, c)
		}
		w.errs = w.errs[:0]
		w.bad = w.bad[:0]
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.key, b.key) })
	if dl >= 0 {
		cs = slices.Insert(cs, 0, cand{kind: Deadlock, key: uint64(dl) << ordBits, state: e.frontierIdx(dl), atState: true})
	}
	return cs
}

// record adds to e.violations, in the order of cs, the violation of each
// check of cs not found before (the first candidate of each), and returns
// the first violation it added (nil: none).
func (e *explorer) record(cs []cand) *Violation {
	var first *Violation
	for i := range cs {
		c := &cs[i]
		id := c.id()
		if slices.Contains(e.found, id) {
			continue
		}
		e.found = append(e.found, id)
		if c.atState && c.kind != Deadlock {
			if c.err != nil {
				e.doneInvErr[c.inv] = true
			} else {
				e.doneInv[c.inv] = true
			}
		}
		v := e.violationOf(*c)
		if v == nil {
			continue // hash compaction's spill failed: the search ends with the error
		}
		e.violations = append(e.violations, v)
		if first == nil {
			first = v
		}
	}
	return first
}

// nextFrontier builds the next level: the states stored during this
// level (indexes levelStart.., less the holes the workers' index blocks
// left), in the order of their minimal keys, and turns the keys into
// parent links. The keys are bucketed by the batch of their parent (a
// counting sort over a sequential scan of the links), then each bucket is
// sorted, in parallel.
func (e *explorer) nextFrontier() {
	segs := e.levelSegments()
	nn := 0
	for j := 0; j < len(segs); j += 2 {
		nn += int(segs[j+1] - segs[j])
	}
	nb := e.nbatch
	bk := append(e.buckets[:0], make([]int, nb+1)...)
	resize(&e.pairs, nn)
	pairs := e.pairs
	if len(e.workers) > 1 && nn >= parallelBucketMin {
		e.bucketParallel(segs, nn, bk, pairs)
	} else {
		e.countBuckets(segs, bk[1:])
		for b := 1; b <= nb; b++ {
			bk[b] += bk[b-1]
		}
		e.placeBuckets(segs, append([]int(nil), bk[:nb]...), pairs)
	}
	compact := e.fps != nil
	var next []uint32 // under HashCompact, the level is in e.vecs
	if !compact {
		resize(&e.spare, nn)
		next, e.spare = e.spare, nil
	}
	var gbase int64
	if compact {
		gbase = e.promoted.Load()
	}
	e.parallelFor(nb, func(slot, b int) {
		ps := pairs[bk[b]:bk[b+1]]
		slices.Sort(ps)
		if compact {
			e.spillStates(slot, gbase, bk[b], b*e.batch, ps)
			return
		}
		for j, x := range ps {
			rel, _, idx := unpackEntry(x)
			next[bk[b]+j] = idx
			*e.store.Link(idx) = uint64(e.frontier[b*e.batch+rel])
		}
	})
	if compact {
		e.promote(nn)
	}
	e.buckets = bk
	e.pending = false
	e.spare, e.frontier, e.nfront = e.frontier, next, nn
	e.depth++
	if len(next) > 0 {
		e.maxDepth = e.depth
	}
}

// countBuckets adds to h[b], for every state of the index ranges rs (lo,
// hi pairs), one when its parent is in frontier batch b.
func (e *explorer) countBuckets(rs []uint32, h []int) {
	st := e.store
	stride, bm := st.Stride(), e.batchMul
	for j := 0; j < len(rs); j += 2 {
		for i := rs[j]; i < rs[j+1]; {
			recs, n := st.LinkRun(i, rs[j+1])
			for k := range n {
				h[batchOf(int(recs[k*stride]>>ordBits), bm)]++
			}
			i += uint32(n)
		}
	}
}

// placeBuckets writes the entry of every state of the index ranges rs
// (lo, hi pairs) to pairs at fill[b], b its parent's frontier batch, and
// advances fill[b]: the states of a bucket in the order of rs.
func (e *explorer) placeBuckets(rs []uint32, fill []int, pairs []uint64) {
	st := e.store
	stride, bm, batch := st.Stride(), e.batchMul, e.batch
	for j := 0; j < len(rs); j += 2 {
		for i := rs[j]; i < rs[j+1]; {
			recs, n := st.LinkRun(i, rs[j+1])
			for k := range n {
				key := recs[k*stride]
				p := int(key >> ordBits)
				b := batchOf(p, bm)
				pairs[fill[b]] = packEntry(p-b*batch, key&ordMax, i+uint32(k))
				fill[b]++
			}
			i += uint32(n)
		}
	}
}

// batchMultiplier returns what batchOf multiplies by for batches of
// batch (1..256) positions: ⌊(2^64−1)/batch⌋ + 1, or 0 for batch 1.
func batchMultiplier(batch int) uint64 {
	if batch <= 1 {
		return 0
	}
	return ^uint64(0)/uint64(batch) + 1
}

// batchOf returns p / batch, the frontier batch of position p (below
// 2^32), by a multiply with mul = batchMultiplier(batch) instead of a
// division, which takes tens of cycles, twice per state of a level in
// nextFrontier: with mul = ⌊2^64/batch⌋ + 1 (2^64/batch for a power of
// two), mul·batch − 2^64 = ε lies in [0, batch), so p·mul/2^64 =
// p/batch + p·ε/(batch·2^64), where p·ε < 2^40 keeps the excess below
// 1/batch, too little to reach the next integer.
func batchOf(p int, mul uint64) int {
	if mul == 0 {
		return p
	}
	hi, _ := bits.Mul64(uint64(p), mul)
	return int(hi)
}

// parallelBucketMin is the fewest states of a level whose bucketing
// nextFrontier splits between the workers.
const parallelBucketMin = 1 << 16

// bucketParallel is nextFrontier's counting sort of the level's nn states
// (the index ranges segs) into the buckets of their parents' batches, in
// parts of consecutive states counted and then placed by the workers at
// once: the starts of the buckets go to bk (nb+1 entries, zeroed), the
// entries to pairs, each bucket in the order of the states' indexes, as
// the one-pass loop places them (the buckets are sorted after). The two
// scans of every state's link are otherwise the one part of a level that
// one core does alone.
func (e *explorer) bucketParallel(segs []uint32, nn int, bk []int, pairs []uint64) {
	nb := e.nbatch
	np := 8 * len(e.workers)
	// part returns the index ranges of the states at positions
	// p*nn/np..(p+1)*nn/np of the level (in index order), lo, hi pairs.
	part := func(p int, out []uint32) []uint32 {
		lo, hi := p*nn/np, (p+1)*nn/np
		out = out[:0]
		at := 0
		for j := 0; j < len(segs) && at < hi; j += 2 {
			n := int(segs[j+1] - segs[j])
			a, b := max(lo, at), min(hi, at+n)
			if a < b {
				out = append(out, segs[j]+uint32(a-at), segs[j]+uint32(b-at))
			}
			at += n
		}
		return out
	}
	hist := make([]int, np*nb)
	e.parallelFor(np, func(_, p int) {
		h := hist[p*nb : (p+1)*nb]
		e.countBuckets(part(p, make([]uint32, 0, 2*len(e.workers)+2)), h)
	})
	// Bucket b's entries: part 0's first, then part 1's, and so on.
	run := 0
	for b := range nb {
		bk[b] = run
		for p := range np {
			c := hist[p*nb+b]
			hist[p*nb+b] = run
			run += c
		}
	}
	bk[nb] = run
	e.parallelFor(np, func(_, p int) {
		fill := hist[p*nb : (p+1)*nb]
		e.placeBuckets(part(p, make([]uint32, 0, 2*len(e.workers)+2)), fill, pairs)
	})
}

// levelSegments returns the ranges of the store indexes of the states
// stored during this level, levelStart..End less the holes (FreeLink)
// that the workers' index blocks left: lo, hi pairs, ascending.
func (e *explorer) levelSegments() []uint32 {
	slices.Sort(e.holes)
	segs := e.segs[:0]
	lo := e.levelStart
	for _, h := range e.holes {
		segs = append(segs, lo, uint32(h>>32))
		lo = uint32(h)
	}
	e.segs = append(segs, lo, e.store.End())
	return e.segs
}

// resize sets *s to a slice of length n, reusing its array unless that
// is too small or more than twice too large: a level's buffers follow the
// level's size down as well as up, so that the memory of the widest level
// is not held to the end of the search.
func resize[T any](s *[]T, n int) {
	c := cap(*s)
	if c >= n && c <= 2*n+1024 {
		*s = (*s)[:n]
		return
	}
	if c > 1<<20 {
		// Collect the array now: the new one should not pile onto it,
		// when the search counts every byte.
		*s = nil
		runtime.GC()
	}
	*s = make([]T, n, n+n/4)
}

// frontierIdx returns the store index of the state at frontier position
// p (0 under HashCompact, whose store holds only the level being built).
func (e *explorer) frontierIdx(p int) uint32 {
	if e.fps != nil {
		return 0
	}
	return e.frontier[p]
}

// parallelFor calls f(slot, 0..n-1) from up to one goroutine per
// worker; slot (< len(e.workers)) numbers the calling goroutine.
func (e *explorer) parallelFor(n int, f func(slot, i int)) {
	nw := min(len(e.workers), n)
	if nw <= 1 || n < 8 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for slot := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(slot, i)
			}
		}()
	}
	wg.Wait()
}

// states returns the number of states stored; the monitor may call it
// during the search.
func (e *explorer) states() int64 {
	if e.fps == nil {
		return e.store.Len()
	}
	return e.promoted.Load() + e.store.Len()
}
