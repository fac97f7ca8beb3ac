package explain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Switches counts the context switches of a trace: the steps taken by
// another process instance than the step before.
func Switches(m *spec.Model, trace []verdict.Step) int {
	n, last := 0, -1
	for _, st := range trace {
		if st.Action < 0 {
			continue
		}
		p := m.Actions[st.Action].Process
		if last >= 0 && p != last {
			n++
		}
		last = p
	}
	return n
}

// ErrTooManyStates reports that [FewestSwitches] passed its state bound.
var ErrTooManyStates = errors.New("explain: too many states for --fewest-switches")

// FewestSwitches returns a counterexample of the same check and length as
// the finite counterexample v (a shortest one, as check reports it) with
// the fewest context switches among all such traces; among those, the
// first in breadth-first (action, branch) order. It searches level by
// level over (state, process of the last step), keeping the fewest
// switches for each; maxStates (0: 1<<22) bounds the pairs of one level.
func FewestSwitches(m *spec.Model, v *verdict.Violation, maxStates int64) (*verdict.Violation, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return fewestSwitches(prog, v, maxStates)
}

// fewestSwitches is [FewestSwitches] on the compiled program of the model.
func fewestSwitches(prog *machine.Program, v *verdict.Violation, maxStates int64) (*verdict.Violation, error) {
	m := prog.Model
	if v == nil || v.LoopStart >= 0 || len(v.Trace) == 0 {
		return nil, fmt.Errorf("explain: --fewest-switches needs a finite counterexample")
	}
	if maxStates <= 0 {
		maxStates = 1 << 22
	}
	r, err := newReplayer(prog, v)
	if err != nil {
		return nil, err
	}
	mach := r.mach
	n := len(v.Trace) - 1
	failing := v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError && r.inv == nil
	type entry struct {
		state  machine.State
		last   int // process of the last step; -1 at the start
		sw     int
		parent int32
		action int
	}
	levels := [][]entry{}
	var cur []entry
	index := map[string]int32{}
	key := func(s machine.State, last int) string {
		b := make([]byte, 0, 8*len(s)+4)
		for _, w := range s {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		return string(binary.LittleEndian.AppendUint32(b, uint32(int32(last))))
	}
	// Level 0: the initial states (the search may start from another
	// initial state than v's).
	_ = mach.Init(func(_ int, t machine.State) {
		k := key(t, -1)
		if _, ok := index[k]; !ok {
			index[k] = int32(len(cur))
			cur = append(cur, entry{state: slices.Clone(t), last: -1, parent: -1, action: -1})
		}
	})
	levels = append(levels, cur)
	for d := 1; d <= n; d++ {
		clear(index)
		var next []entry
		last := d == n && failing
		for i, e := range cur {
			err := mach.Successors(e.state, func(a, _ int, t machine.State) {
				p := m.Actions[a].Process
				sw := e.sw
				if e.last >= 0 && p != e.last {
					sw++
				}
				k := key(t, p)
				if j, ok := index[k]; ok {
					if sw < next[j].sw {
						next[j].sw, next[j].parent, next[j].action = sw, int32(i), a
					}
					return
				}
				index[k] = int32(len(next))
				next = append(next, entry{state: slices.Clone(t), last: p, sw: sw, parent: int32(i), action: a})
			})
			if last && err != nil {
				var ee *machine.ExecError
				if errors.As(err, &ee) && ee.Kind == v.Kind && ee.Pos == v.Pos && ee.Action >= 0 {
					// The failing step: its state is the state it fails in.
					p := m.Actions[ee.Action].Process
					sw := e.sw
					if e.last >= 0 && p != e.last {
						sw++
					}
					k := "fail" + key(e.state, p)
					if j, ok := index[k]; ok {
						if sw < next[j].sw {
							next[j].sw, next[j].parent, next[j].action = sw, int32(i), ee.Action
						}
					} else {
						index[k] = int32(len(next))
						next = append(next, entry{state: e.state, last: -2 - p, sw: sw, parent: int32(i), action: ee.Action})
					}
				}
			}
			if int64(len(next)) > maxStates {
				return nil, ErrTooManyStates
			}
		}
		levels = append(levels, next)
		cur = next
	}
	best := -1
	for j, e := range cur {
		ok := false
		if failing {
			ok = e.last <= -2
		} else {
			ok = r.endsIn(e.state)
		}
		if ok && (best < 0 || e.sw < cur[best].sw) {
			best = j
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("explain: no counterexample of %d steps found again", n)
	}
	// Rebuild the trace, with the answers taken on each step.
	var chain []entry
	for d, j := n, int32(best); d >= 0; d-- {
		e := levels[d][j]
		chain = append(chain, e)
		j = e.parent
	}
	slices.Reverse(chain)
	rec := prog.NewMachine()
	rec.RecordAnswers(true)
	out := &verdict.Violation{Name: v.Name, Kind: v.Kind, Pos: v.Pos, Msg: v.Msg, LoopStart: -1}
	for d, e := range chain {
		var asked []verdict.Answer
		if d > 0 && !(failing && d == n) {
			picked := false
			_ = rec.SuccessorsOf(chain[d-1].state, []int{e.action}, func(a, _ int, t machine.State) {
				if !picked && a == e.action && slices.Equal(t, e.state) {
					asked, picked = machine.CloneAnswers(rec.Asked()), true
				}
			})
		} else if d == 0 {
			picked := false
			_ = rec.Init(func(_ int, t machine.State) {
				if !picked && slices.Equal(t, e.state) {
					asked, picked = machine.CloneAnswers(rec.Asked()), true
				}
			})
		}
		st := make([]int64, prog.Slots())
		prog.Unpack(st, e.state)
		out.Trace = append(out.Trace, verdict.Step{Action: e.action, State: st, Asked: asked})
	}
	return out, nil
}
