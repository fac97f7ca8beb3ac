package checker

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// path returns the stored states from an initial state to idx.
func (e *explorer) path(idx uint32) []uint32 {
	var p []uint32
	for {
		p = append(p, idx)
		l := *e.store.Link(idx)
		if l == noParent {
			break
		}
		if e.pending && idx >= e.levelStart {
			l = uint64(e.frontier[l>>ordBits]) // a key of this level, not yet a parent
		}
		idx = uint32(l)
	}
	slices.Reverse(p)
	return p
}

// violationOf builds the reported violation of a candidate, with a
// concrete trace replayed from the initial state.
func (e *explorer) violationOf(c cand) *Violation {
	p := e.prog
	v := &Violation{Kind: c.kind, LoopStart: -1}
	switch {
	case c.kind == Deadlock:
		v.Msg = "no action is enabled and the state is not terminal"
		v.Pos = p.Model.TerminalPos
		if !v.Pos.IsValid() {
			v.Pos = p.Model.NamePos // no terminal declaration: the spec line
		}
	case c.atState:
		inv := p.Model.Invariants[c.inv]
		v.Name, v.Pos = inv.Name, inv.Pos
		v.Msg = "invariant " + inv.Name + " is violated"
		if c.err != nil {
			v.Pos, v.Msg = c.err.Pos, c.err.Msg+" (evaluating invariant "+inv.Name+")"
		}
	default:
		v.Pos, v.Msg = c.err.Pos, c.err.Msg
		v.Name = "init"
		if c.err.Action >= 0 {
			v.Name = p.Model.Actions[c.err.Action].Name
		}
	}
	var targets [][]uint64
	switch {
	case c.init:
	case e.fps != nil:
		if targets = e.compactTargets(c); targets == nil {
			return nil
		}
	default:
		for _, idx := range e.path(c.state) {
			targets = append(targets, e.store.Vector(idx))
		}
	}
	v.Trace = e.replay(targets, !c.atState)
	if c.kind == Deadlock {
		e.terminalFailure(v)
	}
	return v
}

// terminalFailure turns a deadlock whose terminal condition fails to
// evaluate (an index out of range, a division by zero) into that runtime
// error, like one evaluating an invariant: the language reports every
// runtime error like a violated invariant. The compiled condition counts
// as false when it fails, so the stuck state is found as a deadlock.
func (e *explorer) terminalFailure(v *Violation) {
	p := e.prog
	if !p.HasTerminal() || len(v.Trace) == 0 {
		return
	}
	vec := make([]uint64, p.Words())
	p.Pack(vec, v.Trace[len(v.Trace)-1].State)
	if _, err := p.NewMachine().IsTerminal(vec); err != nil {
		ex := err.(*machine.ExecError)
		v.Kind, v.Name, v.Pos, v.Msg = RuntimeError, "terminal", ex.Pos, ex.Msg+" (evaluating terminal)"
	}
}

// replay rebuilds a concrete trace through the stored (packed, possibly
// canonical) states path: from the first initial state whose canonical
// form is path[0], each step takes the first successor, in (action,
// branch) order, whose canonical form is the next stored state. With
// failing set, a last step shows the first failing action of the last
// state (or the failing init block when path is empty).
func (e *explorer) replay(path [][]uint64, failing bool) []Step {
	p := e.prog
	m := p.NewMachine()
	m.RecordAnswers(true)
	var steps []Step
	var target []uint64
	found := false
	var got Step
	vec := make([]uint64, p.Words())
	m.OnState(func(m *machine.Machine) {
		if found {
			return
		}
		cs := m.CheckSlots()
		copy(cs, m.Slots())
		if e.opts.Canon != nil {
			e.opts.Canon(cs)
		}
		p.Pack(vec, cs)
		if slices.Equal(vec, target) {
			found = true
			got = Step{Action: m.Action(), State: slices.Clone(m.Slots()), Asked: machine.CloneAnswers(m.Asked())}
		}
	})
	failStep := func() Step {
		a, state, asked := m.FailedStep()
		return Step{Action: a, State: slices.Clone(state), Asked: machine.CloneAnswers(asked)}
	}
	if len(path) == 0 {
		m.RunInit()
		return []Step{failStep()}
	}
	target = path[0]
	if !m.RunInit() {
		m.ClearFailure()
	}
	if !found {
		panic("wrapcheck internal error: trace replay lost the initial state")
	}
	steps = append(steps, got)
	for _, t := range path[1:] {
		cur := steps[len(steps)-1].State
		target = t
		found = false
		m.LoadSlots(cur)
		for a := range p.Actions() {
			if !m.RunAction(a) {
				m.ClearFailure()
			}
			if found {
				break
			}
		}
		if !found {
			panic("wrapcheck internal error: trace replay lost a step")
		}
		steps = append(steps, got)
	}
	if failing {
		cur := steps[len(steps)-1].State
		found = true // ignore successors
		m.LoadSlots(cur)
		for a := range p.Actions() {
			if !m.RunAction(a) {
				steps = append(steps, failStep())
				m.ClearFailure()
				return steps
			}
		}
		panic("wrapcheck internal error: trace replay lost the failure")
	}
	return steps
}

func (e *explorer) sampleHeap() uint64 {
	h := verdict.HeapBytes()
	for {
		old := e.peakHeap.Load()
		if h <= old || e.peakHeap.CompareAndSwap(old, h) {
			return h
		}
	}
}

// monitor samples the heap every 100ms (peak, memory budget) and calls
// Options.Progress about once a second.
func (e *explorer) monitor(done chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	ticks := 0
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		h := e.sampleHeap()
		if e.opts.MemoryBudget > 0 && h > uint64(e.opts.MemoryBudget) {
			e.stop.CompareAndSwap(runOK, stopMemory)
		}
		ticks++
		if e.opts.Progress != nil && ticks%10 == 0 {
			var tr int64
			for _, w := range e.workers {
				tr += atomic.LoadInt64(&w.transPub)
			}
			e.opts.Progress(Progress{States: e.states(), Transitions: tr, Depth: int(e.progDepth.Load()),
				Frontier: int(e.progFrontier.Load()), Elapsed: time.Since(e.start), HeapBytes: h})
		}
	}
}

func (e *explorer) stats() Stats {
	s := Stats{States: e.states(), Depth: e.maxDepth, Seconds: time.Since(e.start).Seconds(),
		Workers: len(e.workers), PeakHeapBytes: e.peakHeap.Load()}
	for _, w := range e.workers {
		s.Transitions += w.trans + w.col.Trans
	}
	s.BytesPerState = e.store.BytesPerVector()
	if e.fps != nil && s.States > 0 {
		s.BytesPerState = float64(e.fps.bytes.Load()+e.recs.heapBytes()) / float64(s.States)
	}
	return s
}

func (e *explorer) coverage() Coverage {
	c := Coverage{Fired: make([]int64, e.prog.Actions())}
	for _, w := range e.workers {
		for i, f := range w.fired {
			c.Fired[i] += f
		}
	}
	for _, i := range e.vacIdx {
		hit := false
		for _, w := range e.workers {
			hit = hit || w.witnessed[i]
		}
		if !hit {
			c.VacuousInvariants = append(c.VacuousInvariants, e.prog.Model.Invariants[i].Name)
		}
	}
	return c
}
