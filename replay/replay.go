// Package replay checks a recorded run of a real wrapper against its spec
// (TLC's trace validation, for agent telemetry): [Read] parses the run, one
// JSON object a line, and [Check] follows it through the spec's states and
// reports the first line the spec does not allow or the first violation
// the run reaches. The format is documented in docs/replay.md.
package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// replayer follows runs through the spec: the compiled spec, shared by
// the runs of a recording.
type replayer struct {
	m    *spec.Model
	prog *machine.Program
	mach *machine.Machine
	invs []*machine.Pred
	// maxRecords bounds the history of a run (see [MaxHistory]).
	maxRecords int
	// maxStates, when positive, bounds the states consistent with a run
	// ([FollowOptions.MaxStates]).
	maxStates int
	// slots is matches' buffer of a state's unpacked slots.
	slots []int64
	// The scratch of a step, shared by the runs (one steps at a time):
	// the successors that match it, their states, and the set of them
	// once they are many (newSucc).
	succ   []cand
	next   []uint64
	seen   map[string]bool
	seenOn bool
	// scan is the step being expanded, and visitStep its visit, made
	// once (a closure made at each expansion would be allocated).
	scan      stepScan
	visitStep func(action, branch int, t machine.State)
	// on is the scratch of the actions enabled (allowed), some whether
	// any is, and visitOn the visit that sets them.
	on      []bool
	some    bool
	visitOn func(action, branch int, t machine.State)
	// names caches the lists of actions allowed, by set of actions, for
	// models of at most 64 actions (at most maxNames of them).
	names map[uint64][]string
}

// stepScan is the expansion of a step of a run: the line it takes, the
// record of the state expanded, and what the visits found.
type stepScan struct {
	rs      *runState
	w       Line
	from    int32
	enabled bool
	succ    []cand   // the successors that match the line
	next    []uint64 // their states
}

// stepVisit visits a successor of the state expanded for r.scan.
func (r *replayer) stepVisit(a, b int, t machine.State) {
	sc := &r.scan
	rs := sc.rs
	rs.transitions++
	if a != sc.w.action {
		return
	}
	sc.enabled = true
	if r.matches(t, sc.w.vars) && machine.AnswersInclude(r.mach.Asked(), sc.w.asked) && rs.newSucc(t, sc.succ) {
		rs.recs = append(rs.recs, stepRecord{parent: sc.from, action: int32(a), branch: int32(b)})
		// a state moved by next's growth keeps its slots: the old array
		// is not written again this step
		at := len(sc.next)
		sc.next = append(sc.next, t...)
		sc.succ = append(sc.succ, cand{state: sc.next[at:len(sc.next):len(sc.next)], rec: int32(len(rs.recs) - 1)})
	}
}

// onVisit marks the action of a successor enabled.
func (r *replayer) onVisit(a, _ int, _ machine.State) { r.on[a], r.some = true, true }

// maxNames bounds the cache of the lists of allowed actions.
const maxNames = 1024

// fewSucc is the most successors of a step that newSucc compares one by
// one; past it, it keeps them in a set.
const fewSucc = 16

// MaxHistory is the most step records (12 bytes each, one per spec state
// consistent with the run, per step) a run keeps for the trace of a
// violation: 4Mi, 48 MiB. Past it, the states consistent with the run
// become the new start of the history, and a violation's trace starts
// there ([Result.TraceFrom]).
const MaxHistory = 1 << 22

// compileReplayer compiles m and returns its replayer.
func compileReplayer(m *spec.Model) (*replayer, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return newReplayer(prog)
}

// newReplayer returns the replayer of the compiled model prog.
func newReplayer(prog *machine.Program) (*replayer, error) {
	m := prog.Model
	r := &replayer{m: m, prog: prog, mach: prog.NewMachine(), maxRecords: MaxHistory}
	r.mach.RecordAnswers(true)
	r.visitStep, r.visitOn = r.stepVisit, r.onVisit
	for _, in := range m.Invariants {
		pr, err := prog.CompileExpr(in.Expr)
		if err != nil {
			return nil, err
		}
		r.invs = append(r.invs, pr)
	}
	return r, nil
}

// Check replays the run lines (from [Read]) on m: from the initial
// states, each line must be a successor by its action whose state and
// agent answers match what the line records; every invariant is checked
// on the way, and an assertion or runtime error met in a state the run
// reaches is a violation too. The error reports a model the engine cannot
// compile.
func Check(m *spec.Model, lines []Line) (*Result, error) {
	return CheckContext(context.Background(), m, lines)
}

// Run reads a recorded run from r (named name in errors) and replays it
// on m as [Read] and [Check] do, one line at a time: the run is never held
// whole in memory (what it keeps is, per step, 12 bytes for each spec
// state consistent with the run, up to [MaxHistory]), and no line is read
// after the one where the run diverges or reaches a violation. The error
// reports a malformed line (file:line: message), an I/O error, or a model
// the engine cannot compile.
func Run(m *spec.Model, name string, r io.Reader) (*Result, error) {
	return check(m, newLineReader(m, name, r).next)
}

// CheckContext is [Check] under ctx: when ctx is done, the replay stops
// within a bounded number of evaluation steps (a long evaluation
// included) and returns ctx's error, never a verdict.
func CheckContext(ctx context.Context, m *spec.Model, lines []Line) (*Result, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return CheckProgram(ctx, prog, lines)
}

// CheckProgram is [CheckContext] on prog, the model compiled by the
// caller (machine.Compile), which it does not compile again: a caller
// that also checks or explains the model compiles it once.
func CheckProgram(ctx context.Context, prog *machine.Program, lines []Line) (*Result, error) {
	r, err := newReplayer(prog)
	if err != nil {
		return nil, err
	}
	r.mach.SetInterrupt(func() bool { return ctx.Err() != nil })
	i := 0
	res, err := r.run(func() (Line, bool, error) {
		if err := ctx.Err(); err != nil {
			return Line{}, false, err
		}
		if i == len(lines) {
			return Line{}, false, nil
		}
		i++
		return lines[i-1], true, nil
	})
	// An interrupted evaluation fails like a runtime error: whatever the
	// replay concluded after ctx was done is not a verdict.
	if ctx.Err() != nil {
		return nil, fmt.Errorf("replay stopped: %w", ctx.Err())
	}
	return res, err
}

func check(m *spec.Model, next func() (Line, bool, error)) (*Result, error) {
	r, err := compileReplayer(m)
	if err != nil {
		return nil, err
	}
	return r.run(next)
}

// run replays the run whose lines next returns.
func (r *replayer) run(next func() (Line, bool, error)) (*Result, error) {
	rs := r.start()
	for rs.done == nil {
		w, more, err := next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		rs.feed(w)
	}
	return rs.end(), nil
}

// Result is the outcome of a replay: the run conforms (neither Diverged
// nor Violation), diverges at a line, or reaches a violation.
type Result struct {
	Steps     int                // lines replayed before the end, the divergence or the violation
	Finals    int                // spec states consistent with the whole run
	Diverged  *Divergence        // the first line the spec does not allow
	Violation *verdict.Violation // a violation the run reaches, with its trace
	Line      int                // the line where the violation was reached (0: initial state)
	// TraceFrom is, for a run longer than the history kept ([MaxHistory]),
	// the line whose step the trace of Violation starts with (its step 0
	// is that step, not an initial state); 0: the trace starts at the
	// initial state.
	TraceFrom int
	// Ambiguous, for a [Follower] with a bound on the states of a run, is
	// the number of states the refused step would have left the run
	// consistent with, more than the bound (0: not refused for that).
	Ambiguous int
	// States and Transitions count the spec states followed and the
	// successors generated.
	States, Transitions int64
}

// Divergence is a line of the run that the spec does not allow.
type Divergence struct {
	Line     int
	Action   string
	Enabled  bool     // the action had successors, but none matched the state and answers
	Mismatch []string // for Enabled: what the closest successor differs in (variables, then answers)
	Allowed  []string // the actions enabled there
}

// cand is a state of the spec consistent with the run so far, and the
// record of the step that reached it.
type cand struct {
	state machine.State
	rec   int32 // index into runState.recs; -(i+1): root i
}

// stepRecord is one step of a run's history: the record of the candidate it
// came from, and the action and branch of the spec that took it on. A
// trace is rebuilt by executing these branches again from its root, so a
// step costs 12 bytes a candidate, not a copy of each state.
type stepRecord struct {
	parent, action, branch int32
}

// root is where the history starts: an initial state, or, once the
// history was cut short, a state the run reached at line line by action.
type root struct {
	state  machine.State
	action int
	asked  []verdict.Answer
}

// runState is one run being replayed: fed its lines one at a time, it
// keeps the spec states consistent with the run so far and their history.
type runState struct {
	r   *replayer
	cur []cand
	// arena holds the states of cur past the first step.
	arena []uint64
	roots []root
	recs  []stepRecord
	// recsBuf is recs' first array: a short run's records take no
	// allocation of their own (the guard's steps allocate the less).
	recsBuf [4]stepRecord
	from    int  // the line of the roots' step (0: the initial states)
	started bool // a line was fed, or the end reached: the initial states were checked
	steps   int
	// lastLine is the line of the last step replayed.
	lastLine int
	done     *Result // the outcome, once the run diverged or reached a violation

	states, transitions int64
}

// start begins a run at the initial states of the spec.
func (r *replayer) start() *runState {
	rs := &runState{r: r}
	rs.recs = rs.recsBuf[:0]
	r.startStep()
	err := r.mach.Init(func(_ int, t machine.State) {
		if rs.newSucc(t, rs.cur) {
			rs.roots = append(rs.roots, root{state: slices.Clone(t), action: -1})
			rs.cur = append(rs.cur, cand{state: rs.roots[len(rs.roots)-1].state, rec: -int32(len(rs.roots))})
		}
	})
	if err != nil {
		rs.finish(Result{Violation: rs.execViolation(err, nil, -1, nil), Line: 0})
	}
	return rs
}

// startStep clears the set of newSucc for a new step.
func (r *replayer) startStep() {
	if r.seenOn {
		clear(r.seen)
		r.seenOn = false
	}
}

// newSucc reports whether t is new among the states among, the states
// of this step so far (compared one by one while they are few, then kept
// in a set), and counts it.
func (rs *runState) newSucc(t machine.State, among []cand) bool {
	r := rs.r
	if len(among) < fewSucc {
		for _, c := range among {
			if slices.Equal(c.state, t) {
				return false
			}
		}
		rs.states++
		return true
	}
	if !r.seenOn {
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		for _, c := range among {
			r.seen[stateKey(c.state)] = true
		}
		r.seenOn = true
	}
	k := stateKey(t)
	if r.seen[k] {
		return false
	}
	r.seen[k] = true
	rs.states++
	return true
}

func (rs *runState) finish(res Result) {
	res.States, res.Transitions = rs.states, rs.transitions
	rs.done = &res
}

// checkInitial checks the invariants in the initial states kept.
func (rs *runState) checkInitial() {
	if v := rs.initialViolation(); v != nil {
		rs.finish(Result{Violation: v, Line: 0})
	}
}

// initialViolation marks the run started and returns the violation of an
// invariant in an initial state kept, or nil.
func (rs *runState) initialViolation() *verdict.Violation {
	rs.started = true
	for _, c := range rs.cur {
		if v := rs.checkInvariants(c); v != nil {
			return v
		}
	}
	return nil
}

// feed replays line w; rs.done is set when the run diverges there or
// reaches a violation.
func (rs *runState) feed(w Line) {
	if rs.done != nil {
		return
	}
	if res := rs.advance(w); res != nil {
		rs.finish(*res)
	}
}

// advance takes the step of line w: it returns nil when the spec allows
// it and no violation is reached (the run then moves on), else the
// divergence or violation, leaving the states consistent with the run,
// and the steps counted, as they were (a record of the history may have
// been rebuilt as a new root, which changes no trace).
func (rs *runState) advance(w Line) *Result {
	r := rs.r
	if !rs.started {
		if w.action < 0 {
			var keep []cand
			for _, c := range rs.cur {
				if r.matches(c.state, w.vars) {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 {
				var near closest
				for _, c := range rs.cur {
					r.consider(&near, c.state, w.asked, Line{vars: w.vars})
				}
				rs.started = true
				return &Result{Diverged: &Divergence{Line: w.line, Action: "(initial state)", Enabled: true,
					Mismatch: near.mismatch, Allowed: r.allowed(rs.cur)}}
			}
			rs.cur = keep
			rs.roots[-keep[0].rec-1].asked = machine.CloneAnswers(w.asked) // w's may be reused
			if v := rs.initialViolation(); v != nil {
				return &Result{Violation: v, Line: 0}
			}
			return nil
		}
		if v := rs.initialViolation(); v != nil {
			return &Result{Violation: v, Line: 0}
		}
	}
	if len(rs.recs)+len(rs.cur) > r.maxRecords {
		rs.rebase()
	}
	kept := len(rs.recs)
	r.startStep()
	sc := &r.scan
	*sc = stepScan{rs: rs, w: w, succ: r.succ[:0], next: r.next[:0]}
	for _, c := range rs.cur {
		sc.from = c.rec
		err := r.mach.SuccessorsPacking(c.state, w.action, r.visitStep)
		if err != nil {
			v := rs.execViolation(err, &c, w.action, w.asked)
			rs.recs = rs.recs[:kept]
			return &Result{Steps: rs.steps, Violation: v, Line: w.line, TraceFrom: rs.from}
		}
	}
	succ, next, enabled := sc.succ, sc.next, sc.enabled
	sc.rs, sc.w = nil, Line{} // keep no run or line alive
	if len(succ) == 0 {
		d := &Divergence{Line: w.line, Action: r.m.Actions[w.action].Name, Enabled: enabled, Allowed: r.allowed(rs.cur)}
		if enabled {
			d.Mismatch = rs.nearest(w)
		}
		rs.recs = rs.recs[:kept]
		return &Result{Steps: rs.steps, Diverged: d}
	}
	if r.maxStates > 0 && len(succ) > r.maxStates {
		rs.recs = rs.recs[:kept]
		return &Result{Steps: rs.steps, Ambiguous: len(succ)}
	}
	for _, c := range succ {
		if v := rs.checkInvariants(c); v != nil {
			rs.recs = rs.recs[:kept]
			return &Result{Steps: rs.steps + 1, Violation: v, Line: w.line, TraceFrom: rs.from}
		}
	}
	rs.steps++
	rs.keep(succ)
	r.succ, r.next = succ, next
	rs.lastLine = w.line
	return nil
}

// keep makes succ, in the step's scratch, the states consistent with
// the run, copied into the run's arena.
func (rs *runState) keep(succ []cand) {
	n := 0
	for _, c := range succ {
		n += len(c.state)
	}
	rs.arena = slices.Grow(rs.arena[:0], n)
	rs.cur = rs.cur[:0]
	for _, c := range succ {
		at := len(rs.arena)
		rs.arena = append(rs.arena, c.state...)
		rs.cur = append(rs.cur, cand{state: rs.arena[at:len(rs.arena):len(rs.arena)], rec: c.rec})
	}
}

// nearest says how the successors by w's action that are nearest to w
// differ from it, once none matches: the divergence's mismatch, computed
// only for a step that diverges.
func (rs *runState) nearest(w Line) []string {
	r := rs.r
	var near closest
	for _, c := range rs.cur {
		_ = r.mach.SuccessorsOf(c.state, []int{w.action}, func(_, _ int, t machine.State) {
			r.consider(&near, t, r.mach.Asked(), w)
		})
	}
	return near.mismatch
}

// rebase makes the states consistent with the run the new roots of its
// history, dropping the records before them: the memory a run keeps stays
// under maxRecords records.
func (rs *runState) rebase() {
	roots := make([]root, len(rs.cur))
	for i, c := range rs.cur {
		st := rs.rebuild(c.rec)
		last := st[len(st)-1]
		roots[i] = root{state: slices.Clone(c.state), action: last.Action, asked: last.Asked}
		rs.cur[i].rec = -int32(i + 1)
	}
	rs.roots, rs.recs, rs.from = roots, rs.recs[:0:0], rs.lastLine
}

// end is the outcome of the run once its last line was fed.
func (rs *runState) end() *Result {
	if !rs.started && rs.done == nil {
		rs.checkInitial()
	}
	if rs.done == nil {
		rs.finish(Result{Steps: rs.steps, Finals: len(rs.cur)})
	}
	return rs.done
}

func stateKey(s machine.State) string {
	b := make([]byte, 0, 8*len(s))
	for _, x := range s {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return string(b)
}

func (r *replayer) unpack(s machine.State) []int64 {
	out := make([]int64, r.prog.Slots())
	r.prog.Unpack(out, s)
	return out
}

func (r *replayer) matches(s machine.State, vars []wantVar) bool {
	if len(vars) == 0 {
		return true
	}
	if r.slots == nil {
		r.slots = make([]int64, r.prog.Slots())
	}
	st := r.slots
	r.prog.Unpack(st, s)
	for _, wv := range vars {
		if !slices.Equal(st[wv.v.Slot:wv.v.Slot+wv.v.Type.Width], wv.val) {
			return false
		}
	}
	return true
}

// mismatch says how state s differs from the recorded variables.
func (r *replayer) mismatch(s machine.State, vars []wantVar) []string {
	st := r.unpack(s)
	var out []string
	for _, wv := range vars {
		got := st[wv.v.Slot : wv.v.Slot+wv.v.Type.Width]
		if !slices.Equal(got, wv.val) {
			out = append(out, fmt.Sprintf("%s: recorded %s, the spec gives %s", wv.v.Name,
				report.ValueText(wv.v.Type, wv.val), report.ValueText(wv.v.Type, got)))
		}
	}
	return out
}

// allowed lists the actions enabled in some current state, in model
// order.
func (r *replayer) allowed(cur []cand) []string {
	out, _ := r.enabled(cur)
	return out
}

// enabled lists the actions with a successor in some state of cur, in
// model order (a list shared by the calls that give it: read it only),
// and reports whether some action has a successor or fails there.
func (r *replayer) enabled(cur []cand) (names []string, some bool) {
	if r.on == nil {
		r.on = make([]bool, len(r.m.Actions))
	}
	on := r.on
	clear(on)
	r.some = false
	for _, c := range cur {
		if r.mach.SuccessorsPacking(c.state, -1, r.visitOn) != nil {
			r.some = true
		}
	}
	some = r.some
	var set uint64
	if len(on) <= 64 {
		for i, ok := range on {
			if ok {
				set |= 1 << uint(i)
			}
		}
		if names, ok := r.names[set]; ok {
			return names, some
		}
	}
	for i, ok := range on {
		if ok {
			names = append(names, r.m.Actions[i].Name)
		}
	}
	if len(on) <= 64 && len(r.names) < maxNames {
		if r.names == nil {
			r.names = map[uint64][]string{}
		}
		r.names[set] = slices.Clip(names)
	}
	return names, some
}

// rebuild returns the steps from the root of record rec to it, by
// executing again the branch of each record.
func (rs *runState) rebuild(rec int32) []verdict.Step {
	r := rs.r
	var path []stepRecord
	for rec >= 0 {
		path = append(path, rs.recs[rec])
		rec = rs.recs[rec].parent
	}
	rt := rs.roots[-rec-1]
	steps := []verdict.Step{{Action: rt.action, State: r.unpack(rt.state), Asked: rt.asked}}
	s := rt.state
	for i := len(path) - 1; i >= 0; i-- {
		p := path[i]
		var next machine.State
		var asked []verdict.Answer
		_ = r.mach.SuccessorsOf(s, []int{int(p.action)}, func(_, b int, t machine.State) {
			if b == int(p.branch) && next == nil {
				next, asked = slices.Clone(t), machine.CloneAnswers(r.mach.Asked())
			}
		})
		if next == nil {
			panic("wrapcheck internal error: replay: a branch of the history is gone")
		}
		steps = append(steps, verdict.Step{Action: int(p.action), State: r.unpack(next), Asked: asked})
		s = next
	}
	return steps
}

func (rs *runState) checkInvariants(c cand) *verdict.Violation {
	r := rs.r
	for i, pr := range r.invs {
		in := r.m.Invariants[i]
		v, err := r.mach.Eval(pr, c.state)
		if err != nil {
			var ee *machine.ExecError
			if errors.As(err, &ee) {
				return &verdict.Violation{Name: in.Name, Kind: ee.Kind, Pos: ee.Pos, Msg: ee.Msg, Trace: rs.rebuild(c.rec), LoopStart: -1}
			}
			return &verdict.Violation{Name: in.Name, Kind: verdict.RuntimeError, Pos: in.Pos, Msg: err.Error(), Trace: rs.rebuild(c.rec), LoopStart: -1}
		}
		if v == 0 {
			return &verdict.Violation{Name: in.Name, Kind: verdict.Invariant, Pos: in.Pos, Trace: rs.rebuild(c.rec), LoopStart: -1}
		}
	}
	return nil
}

// execViolation reports a failure met while executing the successors of
// c (nil: the init block): the trace to c, then the failing action.
func (rs *runState) execViolation(err error, c *cand, action int, asked []verdict.Answer) *verdict.Violation {
	r := rs.r
	var ee *machine.ExecError
	if !errors.As(err, &ee) {
		ee = &machine.ExecError{Kind: verdict.RuntimeError, Msg: err.Error(), Action: action}
	}
	name := "init"
	if ee.Action >= 0 {
		name = r.m.Actions[ee.Action].Name
	}
	var trace []verdict.Step
	if c != nil {
		trace = rs.rebuild(c.rec)
		if ee.Action != action {
			asked = nil
		}
		trace = append(trace, verdict.Step{Action: ee.Action, State: slices.Clone(trace[len(trace)-1].State), Asked: machine.CloneAnswers(asked)})
	} else {
		trace = []verdict.Step{{Action: -1, State: make([]int64, r.prog.Slots())}}
	}
	return &verdict.Violation{Name: name, Kind: ee.Kind, Pos: ee.Pos, Msg: ee.Msg, Trace: trace, LoopStart: -1}
}
