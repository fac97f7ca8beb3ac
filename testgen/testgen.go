package testgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// DefaultMaxStates is the number of states Generate explores when
// Options.MaxStates is 0.
const DefaultMaxStates = 1 << 20

// Options configures [Generate]. The zero value is the default: every
// goal covered, at most DefaultMaxStates states explored.
type Options struct {
	// MaxTests bounds the number of tests; 0: as many as the goals need.
	MaxTests int
	// MaxStates bounds the states explored; 0: DefaultMaxStates.
	MaxStates int64
	// Source is the spec's source text, from which a goal quotes a
	// condition the printer cannot print (one that calls a function or
	// reads a let-bound name); nil: "…" stands for it.
	Source []byte
}

// Test is one generated test: a shortest run of the spec that meets the
// goals listed.
type Test struct {
	Name string // t01, t02, ...
	// Trace starts in an initial state; each step has its action and the
	// agent answers it took, in the order asked.
	Trace []verdict.Step
	// Goals are the indexes in Result.Goals of the goals the test meets
	// that no earlier test met, ascending.
	Goals []int
}

// Result is the outcome of [Generate].
type Result struct {
	Goals []*Goal
	Tests []*Test
	// States is the number of states explored (states of the spec,
	// told apart by the arms of the step that reached them too).
	States int64
	// Complete is set when every reachable state was explored: a goal
	// not reachable then is unreachable in every run.
	Complete bool
}

// Covered returns the number of goals a test meets and the number of
// reachable goals.
func (r *Result) Covered() (covered, reachable int) {
	for _, g := range r.Goals {
		if g.Test >= 0 {
			covered++
		}
		if g.Reachable {
			reachable++
		}
	}
	return covered, reachable
}

// node is a state found by the search, with the step that first reached
// it (the tree of shortest paths).
type node struct {
	parent int32 // -1 for an initial state
	action int32
	depth  int32
	asked  []verdict.Answer
	step   []int // goals met by the step into the node
	here   []int // goals met by the node's state
}

// witness is the shortest way found to meet a goal: the path to node
// from, then (for a goal on a step) the step by action into the state
// to (whose slots are kept, as the step may be no edge of the tree).
type witness struct {
	from   int32
	onStep bool
	action int32
	asked  []verdict.Answer
	to     int32
	goals  []int // goals met by the step (onStep)
}

// Generate explores m breadth-first and returns a small set of shortest
// tests that together meet every goal a run can meet (a greedy set cover
// over the shortest witness of each goal), and, for each goal no run
// meets, why not. The error reports a model the engine cannot run, or
// ctx's end.
func Generate(ctx context.Context, m *spec.Model, opts Options) (*Result, error) {
	if opts.MaxStates <= 0 {
		opts.MaxStates = DefaultMaxStates
	}
	in := instrument(m, opts.Source)
	prog, err := machine.Compile(in.m)
	if err != nil {
		return nil, err
	}
	intType := &spec.Type{Kind: spec.IntKind, Name: "int", Width: 1}
	gs := goals(m, in, intType)
	s := &search{m: m, in: in, prog: prog, goals: gs, mach: prog.NewMachine()}
	s.mach.RecordAnswers(true)
	for _, g := range gs {
		if g.pred == nil {
			s.preds = append(s.preds, nil)
			s.conjs = append(s.conjs, nil)
			continue
		}
		pr, err := prog.CompileExpr(g.pred)
		if err != nil {
			return nil, err
		}
		s.preds = append(s.preds, pr)
		var cs []*machine.Pred
		for _, c := range g.conj {
			pc, err := prog.CompileExpr(c)
			if err != nil {
				return nil, err
			}
			cs = append(cs, pc)
		}
		s.conjs = append(s.conjs, cs)
	}
	for _, a := range m.Actions {
		var pr *machine.Pred
		if a.Guard != nil {
			if pr, err = prog.CompileExpr(a.Guard); err != nil {
				return nil, err
			}
		}
		s.guards = append(s.guards, pr)
	}
	s.index()
	if err := s.run(ctx, opts.MaxStates); err != nil {
		return nil, err
	}
	res := &Result{Goals: gs, States: int64(len(s.nodes)), Complete: s.complete}
	s.cover(res, opts.MaxTests)
	s.explain(res)
	return res, nil
}

type search struct {
	m      *spec.Model
	in     *instrumented
	prog   *machine.Program
	mach   *machine.Machine
	goals  []*Goal
	preds  []*machine.Pred   // per goal: its predicate, or nil
	conjs  [][]*machine.Pred // per goal: GuardOff's other conjuncts
	guards []*machine.Pred   // per action: its guard, or nil

	store    *machine.Store
	nodes    []node
	wit      []*witness // per goal
	complete bool

	byAction, byAgent [][]int // goals on a step, per action and per agent

	// For the reasons: per action, the steps it made and the states
	// that enabled it; per agent, the steps that asked it.
	fired, enabled, asked []int64
}

func (s *search) holds(pr *machine.Pred, st machine.State) bool {
	v, err := s.mach.Eval(pr, st)
	return err == nil && v != 0
}

// stateGoals returns the goals on a state that st meets.
func (s *search) stateGoals(st machine.State) []int {
	var out []int
	for i, g := range s.goals {
		switch g.Kind {
		case Antecedent, Terminal:
			if s.holds(s.preds[i], st) {
				out = append(out, i)
			}
		case GuardOff:
			// The conjunct is false, every other one true.
			if v, err := s.mach.Eval(s.preds[i], st); err != nil || v != 0 {
				continue
			}
			ok := true
			for _, c := range s.conjs[i] {
				if !s.holds(c, st) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, i)
			}
		}
	}
	return out
}

// index lists, per action, the goals on a step by it (ActionFires,
// Branch, Write, GuardEdge), and per agent its Answer goals, so that a step
// looks at its own goals only.
func (s *search) index() {
	s.byAction = make([][]int, len(s.m.Actions))
	s.byAgent = make([][]int, len(s.m.Agents))
	for i, g := range s.goals {
		switch g.Kind {
		case ActionFires, Branch, Write, GuardEdge:
			s.byAction[g.action] = append(s.byAction[g.action], i)
		case Answer:
			s.byAgent[g.agent] = append(s.byAgent[g.agent], i)
		}
	}
}

// stepGoals returns the goals on a step that the step from the state
// from by action with answers asked into the state to meets, ascending.
func (s *search) stepGoals(from machine.State, action int, asked []verdict.Answer, to []int64) []int {
	var out []int
	cands := s.byAction[action]
	for _, a := range asked {
		cands = append(slices.Clip(cands), s.byAgent[a.Agent]...)
	}
	for _, i := range cands {
		g := s.goals[i]
		if slices.Contains(out, i) {
			continue
		}
		switch g.Kind {
		case ActionFires:
			if g.action == action {
				out = append(out, i)
			}
		case Branch, Write:
			if g.action == action {
				k := slices.Index(s.in.arms[action], g.arm)
				if uint64(to[s.in.armSlot[k/64]])&(1<<uint(k%64)) != 0 {
					out = append(out, i)
				}
			}
		case Answer:
			for _, a := range asked {
				if a.Agent == g.agent && a.Value[g.off] == g.val {
					out = append(out, i)
					break
				}
			}
		case GuardEdge:
			if g.action == action && s.holds(s.preds[i], from) {
				out = append(out, i)
			}
		}
	}
	sort.Ints(out)
	return out
}

func (s *search) run(ctx context.Context, limit int64) error {
	p := s.prog
	words := max(p.Words(), 1)
	s.store = machine.NewStore(words)
	s.wit = make([]*witness, len(s.goals))
	s.fired = make([]int64, len(s.m.Actions))
	s.enabled = make([]int64, len(s.m.Actions))
	s.asked = make([]int64, len(s.m.Agents))
	full := false
	add := func(t machine.State, parent int32, action int32, asked []verdict.Answer) (int32, bool) {
		vec := t
		if len(vec) == 0 {
			vec = []uint64{0}
		}
		if int64(len(s.nodes)) >= limit {
			full = true
			return -1, false
		}
		idx, isNew, err := s.store.Insert(vec, 0)
		if err != nil {
			full = true
			return -1, false
		}
		if !isNew {
			return int32(idx), false
		}
		d := int32(0)
		if parent >= 0 {
			d = s.nodes[parent].depth + 1
		}
		s.nodes = append(s.nodes, node{parent: parent, action: action, depth: d, asked: asked})
		return int32(idx), true
	}
	if err := s.mach.Init(func(_ int, t machine.State) {
		if idx, ok := add(t, -1, -1, nil); ok {
			s.noteState(idx, t)
		}
	}); err != nil {
		var ee *machine.ExecError
		if !errors.As(err, &ee) {
			return err
		}
	}
	packed := make(machine.State, words)
	slots := make([]int64, p.Slots())
	for i := 0; i < len(s.nodes); i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		copy(packed, s.store.Vector(uint32(i)))
		for a, g := range s.guards {
			if g == nil || s.holds(g, packed) {
				s.enabled[a]++
			}
		}
		err := s.mach.Successors(packed, func(action, _ int, t machine.State) {
			asked := machine.CloneAnswers(s.mach.Asked())
			s.fired[action]++
			for _, a := range asked {
				s.asked[a.Agent]++
			}
			p.Unpack(slots, t)
			met := s.stepGoals(packed, action, asked, slots)
			idx, isNew := add(t, int32(i), int32(action), asked)
			if isNew {
				s.nodes[idx].step = met
				s.noteState(idx, t)
			}
			for _, g := range met {
				if s.wit[g] == nil && idx >= 0 {
					s.wit[g] = &witness{from: int32(i), onStep: true, action: int32(action), asked: asked, to: idx, goals: met}
				}
			}
		})
		if err != nil {
			var ee *machine.ExecError
			if !errors.As(err, &ee) {
				return err
			}
		}
	}
	s.complete = !full
	return nil
}

// noteState records the goals on a state that the new node idx meets.
func (s *search) noteState(idx int32, t machine.State) {
	met := s.stateGoals(t)
	s.nodes[idx].here = met
	for _, g := range met {
		if s.wit[g] == nil {
			s.wit[g] = &witness{from: idx, to: idx}
		}
	}
}

// path returns the nodes from an initial state to idx.
func (s *search) path(idx int32) []int32 {
	var p []int32
	for i := idx; i >= 0; i = s.nodes[i].parent {
		p = append(p, i)
	}
	slices.Reverse(p)
	return p
}

// metBy returns the goals the witness's trace meets, in every state and
// step of it.
func (s *search) metBy(w *witness) map[int]bool {
	met := map[int]bool{}
	for _, i := range s.path(w.from) {
		for _, g := range s.nodes[i].here {
			met[g] = true
		}
		for _, g := range s.nodes[i].step {
			met[g] = true
		}
	}
	if w.onStep {
		for _, g := range w.goals {
			met[g] = true
		}
		for _, g := range s.nodes[w.to].here {
			met[g] = true
		}
	}
	return met
}

func (w *witness) length(s *search) int {
	n := int(s.nodes[w.from].depth)
	if w.onStep {
		n++
	}
	return n
}

// trace rebuilds the witness's trace as a trace of the spec (the hidden
// variables cut off).
func (s *search) trace(w *witness) []verdict.Step {
	n := len(s.m.Slots)
	state := func(idx int32) []int64 {
		st := make([]int64, s.prog.Slots())
		s.prog.Unpack(st, s.store.Vector(uint32(idx)))
		return st[:n:n]
	}
	var tr []verdict.Step
	for _, i := range s.path(w.from) {
		nd := &s.nodes[i]
		tr = append(tr, verdict.Step{Action: int(nd.action), State: state(i), Asked: nd.asked})
	}
	if w.onStep {
		tr = append(tr, verdict.Step{Action: int(w.action), State: state(w.to), Asked: w.asked})
	}
	return tr
}

// cover picks tests greedily: the witness that meets the most goals not
// met yet (the shorter, then the one of the lower goal, among equals),
// until every reachable goal is met or maxTests tests are picked.
func (s *search) cover(res *Result, maxTests int) {
	type cand struct {
		w   *witness
		met map[int]bool
		n   int
	}
	var cands []cand
	for g, w := range s.wit {
		if w == nil {
			continue
		}
		res.Goals[g].Reachable = true
		cands = append(cands, cand{w: w, met: s.metBy(w), n: w.length(s)})
	}
	done := map[int]bool{}
	for maxTests <= 0 || len(res.Tests) < maxTests {
		best, bestGain := -1, 0
		for i, c := range cands {
			gain := 0
			for g := range c.met {
				if !done[g] {
					gain++
				}
			}
			if gain > bestGain || gain == bestGain && gain > 0 && c.n < cands[best].n {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			break
		}
		c := cands[best]
		t := &Test{Name: fmt.Sprintf("t%02d", len(res.Tests)+1), Trace: s.trace(c.w)}
		for g := range c.met {
			if !done[g] {
				done[g] = true
				t.Goals = append(t.Goals, g)
				res.Goals[g].Test = len(res.Tests)
			}
		}
		sort.Ints(t.Goals)
		res.Tests = append(res.Tests, t)
	}
	if len(res.Tests) >= 100 {
		for i, t := range res.Tests {
			t.Name = fmt.Sprintf("t%03d", i+1)
		}
	}
}

// explain says why each goal that no run meets is not met.
func (s *search) explain(res *Result) {
	within := ""
	if !res.Complete {
		within = fmt.Sprintf(" (in the %d states explored)", res.States)
	}
	for _, g := range res.Goals {
		if g.Reachable {
			continue
		}
		if g.static != "" {
			g.Why = g.static
			continue
		}
		a := ""
		if g.Kind != Answer && g.Kind != Antecedent && g.Kind != Terminal {
			a = s.m.Actions[g.action].Name
		}
		switch g.Kind {
		case ActionFires:
			if s.enabled[g.action] == 0 {
				g.Why = "its guard holds in no reachable state"
			} else {
				g.Why = fmt.Sprintf("its guard holds in %d reachable states, but every branch of it fails there", s.enabled[g.action])
			}
		case Branch:
			if s.fired[g.action] == 0 {
				g.Why = a + " never fires"
			} else {
				g.Why = fmt.Sprintf("%s fires in %d steps, none of them takes this branch", a, s.fired[g.action])
			}
		case Write:
			if s.fired[g.action] == 0 {
				g.Why = a + " never fires"
			} else {
				g.Why = fmt.Sprintf("%s fires in %d steps, none of them runs it where it changes the value", a, s.fired[g.action])
			}
		case Answer:
			ag := s.m.Agents[g.agent].Name
			if s.asked[g.agent] == 0 {
				g.Why = ag + " is never asked"
			} else {
				g.Why = fmt.Sprintf("%s is asked in %d steps, never with this answer: its assume, or the arguments it is given, rule it out", ag, s.asked[g.agent])
			}
		case GuardEdge:
			if s.fired[g.action] == 0 {
				g.Why = a + " never fires"
			} else {
				g.Why = fmt.Sprintf("%s fires in %d steps, none from a state at this edge", a, s.fired[g.action])
			}
		case GuardOff:
			g.Why = "no reachable state has this conjunct false and the others true"
		case Antecedent:
			g.Why = "it holds in no reachable state: the check holds vacuously"
		case Terminal:
			g.Why = "no reachable state satisfies it"
		}
		g.Why += within
	}
}
