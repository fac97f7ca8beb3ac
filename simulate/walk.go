package simulate

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// what says where a walk found its violation.
type what uint8

const (
	atInit      what = iota // the init block failed
	atInvariant             // an invariant is false in the last state
	atInvError              // evaluating an invariant failed in the last state
	atDeadlock              // the last state has no successor and is not terminal
	atTerminal              // evaluating terminal failed in the last state, which has no successor
	atAction                // a branch of an action failed in the last state
)

// found is a violation found by a walk, kept as the walk's choices: the
// trace is built only for the one reported.
type found struct {
	walk  int64
	steps int // steps of the trace: the states, plus the failing step of atInit and atAction
	what  what
	inv   int                // atInvariant, atInvError: the invariant
	err   *machine.ExecError // atInit, atInvError, atTerminal, atAction
	path  []uint32           // per state of the trace, its ordinal among the successors (init states) of the one before
	last  []uint64           // the last state, packed
}

// less reports whether f is reported before g: fewer steps, then the
// lower walk index.
func (f *found) less(g *found) bool {
	return f.steps < g.steps || f.steps == g.steps && f.walk < g.walk
}

// walker runs walks on one goroutine with its own machine.
type walker struct {
	s   *sim
	m   *machine.Machine
	pcg rand.PCG

	cur, nxt []uint64
	path     []uint32
	seen     uint64 // successors visited at the current step
	pick     uint32 // the ordinal of the one picked so far
	visitI   func(branch int, t machine.State)
	visitS   func(action, branch int, t machine.State)

	walks, steps, ends int64
	depth              int
	best               *found
}

func newWalker(s *sim) *walker {
	w := &walker{s: s, m: s.prog.NewMachine(),
		cur: make([]uint64, s.prog.Words()), nxt: make([]uint64, s.prog.Words())}
	ctx := s.ctx
	w.m.SetInterrupt(func() bool { return ctx.Err() != nil })
	w.visitI = func(_ int, t machine.State) { w.offer(t) }
	w.visitS = func(_, _ int, t machine.State) { w.offer(t) }
	return w
}

// offer is reservoir sampling over the successors of a step: the i-th
// one (from 0) replaces the pick with probability 1/(i+1), so that each
// is picked with probability 1/n without holding them all.
func (w *walker) offer(t machine.State) {
	i := w.seen
	w.seen++
	if i == 0 || w.below(i+1) == 0 {
		copy(w.nxt, t)
		w.pick = uint32(min(i, 1<<32-1))
	}
}

// below returns a uniform integer in [0, n) (Lemire's multiply-shift
// with rejection, on the walk's PCG stream).
func (w *walker) below(n uint64) uint64 {
	hi, lo := bits.Mul64(w.pcg.Uint64(), n)
	if lo < n {
		t := -n % n
		for lo < t {
			hi, lo = bits.Mul64(w.pcg.Uint64(), n)
		}
	}
	return hi
}

func (w *walker) work() {
	for {
		j, ok := w.s.take()
		if !ok {
			return
		}
		w.walk(w.s.walkIndex(j))
	}
}

// walk runs walk k. A walk cut short by the interrupt (ctx) is not
// counted.
func (w *walker) walk(k int64) {
	s := w.s
	m := w.m
	w.pcg.Seed(s.opts.Seed, secondSeed(k))
	w.path = w.path[:0]
	w.seen = 0
	if err := m.Init(w.visitI); err != nil {
		w.fail(k, atInit, -1, err)
		return
	}
	if w.seen == 0 {
		w.done(true)
		return
	}
	for d := 0; ; d++ {
		w.cur, w.nxt = w.nxt, w.cur
		w.path = append(w.path, w.pick)
		for i, pr := range s.invs {
			v, err := m.Eval(pr, w.cur)
			if err != nil {
				w.fail(k, atInvError, i, err)
				return
			}
			if v == 0 {
				w.fail(k, atInvariant, i, nil)
				return
			}
		}
		if d == s.opts.Depth {
			w.done(false)
			return
		}
		w.seen = 0
		if err := m.Successors(w.cur, w.visitS); err != nil {
			w.fail(k, atAction, -1, err)
			return
		}
		if w.seen == 0 {
			if !s.opts.NoDeadlock {
				term, err := m.IsTerminal(w.cur)
				if err != nil {
					w.fail(k, atTerminal, -1, err)
					return
				}
				if !term {
					w.fail(k, atDeadlock, -1, nil)
					return
				}
			}
			w.done(true)
			return
		}
	}
}

// done counts a finished walk; end: it reached a state with no
// successor.
func (w *walker) done(end bool) {
	if w.m.Interrupted() || w.s.ctx.Err() != nil {
		return
	}
	w.walks++
	if n := len(w.path); n > 0 {
		w.steps += int64(n - 1)
		w.depth = max(w.depth, n-1)
	}
	if end {
		w.ends++
	}
}

// fail ends walk k with a violation (err: the failure, for the kinds
// that have one).
func (w *walker) fail(k int64, at what, inv int, err error) {
	var ex *machine.ExecError
	if err != nil && !errors.As(err, &ex) {
		return // interrupted: the walk's outcome is unknown
	}
	w.done(false)
	if w.m.Interrupted() || w.s.ctx.Err() != nil {
		return
	}
	w.s.found.Store(true)
	f := &found{walk: k, steps: len(w.path), what: at, inv: inv, err: ex}
	if at == atInit || at == atAction {
		f.steps++
	}
	if w.best != nil && !f.less(w.best) {
		return
	}
	f.path = slices.Clone(w.path)
	if len(w.path) > 0 {
		f.last = slices.Clone(w.cur)
	}
	w.best = f
}

// violation builds the reported violation of f: its trace is replayed
// from the initial state through a machine that records agent answers,
// following f's ordinals, and must reach f's last state.
func (w *walker) violation(f *found) *verdict.Violation {
	prog := w.s.prog
	md := prog.Model
	m := prog.NewMachine()
	m.RecordAnswers(true)
	v := &verdict.Violation{LoopStart: -1}
	var cur []uint64
	v.Trace, cur = replayPath(prog, m, f.path)
	if !slices.Equal(cur, f.last) {
		panic("wrapcheck internal error: simulate: the replayed walk reached another state")
	}
	ex := f.err
	switch f.what {
	case atInit, atAction:
		var err error
		if f.what == atInit {
			err = m.Init(func(int, machine.State) {})
		} else {
			err = m.Successors(cur, func(int, int, machine.State) {})
		}
		if !errors.As(err, &ex) || ex.Pos != f.err.Pos || ex.Msg != f.err.Msg {
			panic("wrapcheck internal error: simulate: the replayed walk lost its failure")
		}
		v.Kind, v.Pos, v.Msg, v.Name = ex.Kind, ex.Pos, ex.Msg, "init"
		if ex.Action >= 0 {
			v.Name = md.Actions[ex.Action].Name
		}
		a, st, asked := m.FailedStep()
		v.Trace = append(v.Trace, verdict.Step{Action: a, State: slices.Clone(st), Asked: machine.CloneAnswers(asked)})
	case atInvariant:
		in := md.Invariants[f.inv]
		v.Kind, v.Name, v.Pos, v.Msg = verdict.Invariant, in.Name, in.Pos, "invariant "+in.Name+" is violated"
	case atInvError:
		in := md.Invariants[f.inv]
		v.Kind, v.Name, v.Pos, v.Msg = verdict.RuntimeError, in.Name, ex.Pos, ex.Msg+" (evaluating invariant "+in.Name+")"
	case atDeadlock:
		v.Kind, v.Msg, v.Pos = verdict.Deadlock, "no action is enabled and the state is not terminal", md.TerminalPos
		if !v.Pos.IsValid() {
			v.Pos = md.NamePos
		}
	case atTerminal:
		v.Kind, v.Name, v.Pos, v.Msg = verdict.RuntimeError, "terminal", ex.Pos, ex.Msg+" (evaluating terminal)"
	}
	return v
}

// replayPath rebuilds the trace of a walk from its ordinals, through m
// (a machine of prog that records agent answers), and returns it with the
// last state, packed.
func replayPath(prog *machine.Program, m *machine.Machine, path []uint32) ([]verdict.Step, []uint64) {
	unpack := func(t machine.State) []int64 {
		st := make([]int64, prog.Slots())
		prog.Unpack(st, t)
		return st
	}
	var trace []verdict.Step
	var cur []uint64
	for i, ord := range path {
		n := uint32(0)
		var got *verdict.Step
		take := func(action int, t machine.State) {
			if n == ord {
				got = &verdict.Step{Action: action, State: unpack(t), Asked: machine.CloneAnswers(m.Asked())}
				cur = slices.Clone(t)
			}
			n++
		}
		if i == 0 {
			_ = m.Init(func(_ int, t machine.State) { take(-1, t) })
		} else {
			_ = m.Successors(cur, func(a, _ int, t machine.State) { take(a, t) })
		}
		if got == nil {
			panic("wrapcheck internal error: simulate: the replayed walk lost a step")
		}
		trace = append(trace, *got)
	}
	return trace, cur
}

// secondSeed is the second seed word of walk k: SplitMix64's k-th output
// from 0, so that walks 0, 1, 2... get unrelated streams.
func secondSeed(k int64) uint64 { return machine.Mix(uint64(k) + 0x9e3779b97f4a7c15) }
