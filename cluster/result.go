package cluster

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// global returns the figures of the whole search up to the committed
// level, from every worker's summary of it.
func (w *worker) global() (verdict.Stats, verdict.Coverage) {
	st := verdict.Stats{States: int64(len(w.inits)), Workers: w.n}
	cov := verdict.Coverage{Fired: make([]int64, len(w.e.fired))}
	wit := slices.Clone(w.witnessed)
	if w.level > 0 {
		for _, s := range w.sums {
			st.States += s.states
			st.Transitions += s.trans
			for i, f := range s.fired {
				cov.Fired[i] += f
			}
			for i, x := range s.witnessed {
				wit[i] = wit[i] || x
			}
		}
		st.Depth = w.level
		if w.levelSize() == 0 {
			st.Depth = w.level - 1
		}
	}
	st.Seconds = time.Since(w.start).Seconds()
	st.PeakHeapBytes = verdict.HeapBytes()
	st.BytesPerState = w.visited.BytesPerVector()
	for _, i := range w.e.invs {
		if w.e.prog.HasAntecedent(i) && !wit[i] {
			cov.VacuousInvariants = append(cov.VacuousInvariants, w.e.prog.Model.Invariants[i].Name)
		}
	}
	return st, cov
}

// levelSize returns the number of states of the committed level.
func (w *worker) levelSize() int {
	if w.level == 0 {
		return len(w.inits)
	}
	n := 0
	for _, s := range w.sums {
		n += len(s.keys)
	}
	return n
}

// stopped returns the result of a search that ctx ended: the figures of
// the last committed level.
func (w *worker) stopped(ctx context.Context) *verdict.Result {
	stop := verdict.StopInterrupted
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		stop = verdict.StopTimeout
	}
	st, cov := w.lastStats, w.lastCov
	st.Seconds = time.Since(w.start).Seconds()
	return &verdict.Result{Verdict: verdict.Unknown, Stop: stop, Stats: st, Coverage: cov}
}

// decide ends the search at the committed level when the single-process
// search ends there: a violation found while making the level (the
// deadlock of the level before, else the failure or bad state with the
// smallest key), a limit, or an empty level.
func (w *worker) decide() (*verdict.Result, bool, error) {
	st, cov := w.global()
	w.lastStats, w.lastCov = st, cov
	v, err := w.violation()
	if err != nil {
		return nil, true, err
	}
	res := &verdict.Result{Stats: st, Coverage: cov}
	size := w.levelSize()
	switch {
	case v != nil:
		res.Verdict, res.Violation, res.Violations = verdict.Violated, v, []*verdict.Violation{v}
		if size > 0 {
			res.Stop = verdict.StopAtViolation
		}
	case w.ctx.Err() != nil:
		return w.stopped(w.ctx), true, nil
	case w.level > 0 && w.opts.MaxStates > 0 && st.States > w.opts.MaxStates:
		res.Verdict, res.Stop = verdict.Unknown, verdict.StopStates
	case size == 0:
		res.Verdict = verdict.Holds
	case w.opts.MaxDepth > 0 && w.level >= w.opts.MaxDepth:
		res.Verdict, res.Stop = verdict.Unknown, verdict.StopDepth
	default:
		return nil, false, nil
	}
	return res, true, nil
}

// violation returns the violation the committed level reports, nil: none.
func (w *worker) violation() (*verdict.Violation, error) {
	e := w.e
	if w.level == 0 {
		badAt, badOrd := -1, 0
		var b bad
		scratch := make([]bool, len(w.witnessed))
		for i, s := range w.inits {
			left := slices.Clone(e.ante)
			if bb, found := e.check(s, scratch, &left); found {
				badAt, badOrd, b = i, w.initOrds[i], bb
				break
			}
		}
		switch {
		case w.initFail != nil && (badAt < 0 || int(w.initFail.k.Ord) < badOrd):
			return w.violationOf(w.initFail.ex, nil, nil, true)
		case badAt >= 0:
			return w.violationOf(nil, &b, [][]uint64{w.inits[badAt]}, false)
		}
		return nil, nil
	}
	dl := int64(-1)
	var fail *failure
	var bs *badState
	owner := -1
	for j, s := range w.sums {
		if s.deadlock >= 0 && (dl < 0 || s.deadlock < dl) {
			dl = s.deadlock
		}
		if s.fail != nil && (fail == nil || s.fail.k.Less(fail.k)) {
			fail = s.fail
		}
		if s.bad != nil && (bs == nil || s.bad.k.Less(bs.k)) {
			bs, owner = s.bad, j
		}
	}
	switch {
	case dl >= 0:
		path, err := w.pathTo(w.level-1, uint64(dl))
		if err != nil {
			return nil, err
		}
		return w.deadlock(path)
	case fail != nil && (bs == nil || fail.k.Less(bs.k)):
		path, err := w.pathTo(w.level-1, fail.k.Pos)
		if err != nil {
			return nil, err
		}
		return w.violationOf(fail.ex, nil, path, true)
	case bs != nil:
		path, err := w.pathTo(w.level-1, bs.k.Pos)
		if err != nil {
			return nil, err
		}
		vecs, _, err := w.readStates(w.level, owner, uint64(len(w.sums[owner].keys)))
		if err != nil {
			return nil, err
		}
		if bs.local >= len(vecs) {
			return nil, &CorruptError{Path: w.name(KindStates, w.level, owner, owner).Key(), Msg: "fewer states than its summary names"}
		}
		return w.violationOf(nil, &bs.b, append(path, vecs[bs.local]), false)
	}
	return nil, nil
}

// pathTo returns the stored states from an initial state to the state at
// position pos of level.
func (w *worker) pathTo(level int, pos uint64) ([][]uint64, error) {
	var path [][]uint64
	for l := level; l >= 1; l-- {
		sums := w.sums
		if l != w.level {
			var err error
			if sums, err = w.readSummaries(l, nil); err != nil {
				return nil, err
			}
		}
		type entry struct {
			k     key
			owner int
		}
		var all []entry
		for j, s := range sums {
			for _, k := range s.keys {
				all = append(all, entry{k, j})
			}
		}
		slices.SortFunc(all, func(a, b entry) int { return a.k.Compare(b.k) })
		if pos >= uint64(len(all)) {
			return nil, &CorruptError{Path: w.name(KindSummary, l, 0, 0).Key(), Msg: "a parent position beyond the level"}
		}
		en := all[pos]
		local, _ := slices.BinarySearchFunc(sums[en.owner].keys, en.k, key.Compare)
		vecs, keys, err := w.readStates(l, en.owner, uint64(len(sums[en.owner].keys)))
		if err != nil {
			return nil, err
		}
		if local >= len(vecs) || keys[local] != en.k {
			return nil, &CorruptError{Path: w.name(KindStates, l, en.owner, en.owner).Key(), Msg: "states and summary disagree"}
		}
		path = append(path, vecs[local])
		pos = en.k.Pos
	}
	if pos >= uint64(len(w.inits)) {
		return nil, &CorruptError{Path: w.name(KindStates, 1, 0, 0).Key(), Msg: "a parent beyond the initial states"}
	}
	path = append(path, w.inits[pos])
	slices.Reverse(path)
	return path, nil
}

// deadlock builds the violation of a deadlock at the last state of path.
func (w *worker) deadlock(path [][]uint64) (*verdict.Violation, error) {
	m := w.e.prog.Model
	v := &verdict.Violation{Kind: verdict.Deadlock, LoopStart: -1,
		Msg: "no action is enabled and the state is not terminal", Pos: m.TerminalPos}
	if !v.Pos.IsValid() {
		v.Pos = m.NamePos
	}
	tr, err := w.e.replay(path, false)
	if err != nil {
		return nil, err
	}
	v.Trace = tr
	// A terminal condition that fails to evaluate makes the stuck state a
	// runtime error, as the single-process search reports it.
	last := make([]uint64, w.e.words)
	w.e.prog.Pack(last, tr[len(tr)-1].State)
	if _, err := w.e.prog.NewMachine().IsTerminal(last); err != nil {
		if ex, ok := err.(*machine.ExecError); ok {
			v.Kind, v.Name, v.Pos, v.Msg = verdict.RuntimeError, "terminal", ex.Pos, ex.Msg+" (evaluating terminal)"
		}
	}
	return v, nil
}

// violationOf builds the violation of a failure (ex) or of a bad state
// (b, the last state of path), with its trace.
func (w *worker) violationOf(ex *machine.ExecError, b *bad, path [][]uint64, failing bool) (*verdict.Violation, error) {
	m := w.e.prog.Model
	v := &verdict.Violation{LoopStart: -1}
	if b != nil {
		inv := m.Invariants[b.inv]
		v.Kind, v.Name, v.Pos = verdict.Invariant, inv.Name, inv.Pos
		v.Msg = "invariant " + inv.Name + " is violated"
		if b.ex != nil {
			v.Kind, v.Pos, v.Msg = verdict.RuntimeError, b.ex.Pos, b.ex.Msg+" (evaluating invariant "+inv.Name+")"
		}
	} else {
		v.Kind, v.Pos, v.Msg, v.Name = ex.Kind, ex.Pos, ex.Msg, "init"
		if ex.Action >= 0 {
			v.Name = m.Actions[ex.Action].Name
		}
	}
	tr, err := w.e.replay(path, failing)
	if err != nil {
		return nil, err
	}
	v.Trace = tr
	return v, nil
}
