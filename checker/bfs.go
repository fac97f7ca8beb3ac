package checker

import (
	"cmp"
	"context"
	"errors"
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

// explorer is one search: its inputs, the workers, and the parts below,
// each with its invariants next to it. The parts are value structs
// embedded in place, so that their fields are reached as the explorer's
// own, without a load more: compaction (compact.go, Options.HashCompact),
// conjunctIndex (invariant.go, the invariants' conjuncts by slot),
// continuation (violation.go, Options.Continue), level (frontier.go, the
// frontier and the level being built), batching (how a level is split
// between the workers) and progress (what the workers and the monitor
// read and write while a level runs).
type explorer struct {
	ctx         context.Context
	opts        Options
	prog        *machine.Program
	store       *machine.Store // the visited set; under HashCompact, the level being built
	n           int
	minParallel int // levels smaller than this are expanded by one worker

	compaction
	conjunctIndex
	continuation

	workers []*worker
	level
	batching
	progress
}

// batching is how a level is split between the workers: into nbatch
// batches of batch frontier positions (the last one shorter), which the
// workers claim in order by incrementing next; parallel is set when
// several of them expand the level (it had minParallel states or more
// and there are several workers), and they then insert into the store
// at once. Set by expandLevel before the level; during it only next
// changes.
type batching struct {
	parallel bool // several workers insert into the store
	batch    int
	batchMul uint64 // batchMultiplier(batch)
	nbatch   int
	next     atomic.Int64
}

// progress is what the workers and the monitor read and write while a
// level runs, all of it atomically: stop (a stop code, runOK until a
// limit, the context, the memory budget or a full store ends the search;
// set once, by CompareAndSwap from runOK), the heap's peak and, for
// Options.Progress, the level's depth and frontier size. start is the
// search's start, set once before it.
type progress struct {
	stop                    atomic.Int32
	peakHeap                atomic.Uint64
	progDepth, progFrontier atomic.Int64 // for Progress
	start                   time.Time
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

	// cs: checkState's room for the index of conjuncts (cix), whose
	// Slots list the slots in which the state being checked differs from
	// its parent. During a flush, the check area holds the parent once
	// checkReady is set, and a new state is checked by writing its
	// changed slots there and restoring them after (checkState): no
	// conjunct unpacks its slots.
	cs         machine.ConjScratch
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
		continuation: continuation{doneInv: make([]bool, ninv), doneInvErr: make([]bool, ninv)}}
	if err := e.selectInvariants(); err != nil {
		return nil, err
	}
	e.store = e.newStore(workers)
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
			cs:    e.cix.Scratch(),
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

// newStore returns an empty store of the program's states for the given
// number of workers. One worker without ample sets never asks which
// state a duplicate is (the cycle proviso does, and parallel levels keep
// a duplicate's smallest key): its store keeps a vector alone in its
// table slot where it fits, which spares a duplicate the record's miss.
func (e *explorer) newStore(workers int) *machine.Store {
	var st *machine.Store
	if workers == 1 && e.opts.Ample == nil {
		st = machine.NewKeyStoreFor(e.prog)
	} else {
		st = machine.NewStoreFor(e.prog)
	}
	st.SetWriters(workers)
	return st
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
		link = verdict.Ordinal(ord) // the init ordinal, for the trace record
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
	key := verdict.Key{Pos: uint64(p), Ord: verdict.Ordinal(m.FailOrdinal())}.Word()
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

// states returns the number of states stored; the monitor may call it
// during the search.
func (e *explorer) states() int64 {
	if e.fps == nil {
		return e.store.Len()
	}
	return e.promoted.Load() + e.store.Len()
}
