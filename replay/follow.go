package replay

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/internal/jsonscan"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Decoder parses single run lines (the JSON objects of a run file) of one
// model, for a caller that receives them one at a time from elsewhere
// than a file (package guard). It checks names and values exactly as
// [Read] does. A Decoder is not safe for concurrent use.
type Decoder struct {
	lr *lineReader
}

// NewDecoder returns a Decoder of the lines of runs of m.
func NewDecoder(m *spec.Model) *Decoder {
	lr := newLineReader(m, "", nil)
	lr.reuse = true
	return &Decoder{lr: lr}
}

// Decode parses text, one JSON object, as the line numbered line of a
// run; first says it is the first line of its run, the only one that may
// omit the action (it then constrains the initial state). The error is
// the message [Read] gives for the line, without the file and line. The
// Line is valid until the next call: what a [Trail] keeps of it, it
// copies.
func (d *Decoder) Decode(text []byte, line int, first bool) (Line, error) {
	if len(text) > MaxLineBytes {
		return Line{}, errLineTooLong
	}
	d.lr.n = line
	d.lr.parsed = 1
	if first {
		d.lr.parsed = 0
	}
	return d.lr.parse(text)
}

// DecodeFast parses the JSON object at s's position as Decode(its text,
// 0, true) parses it, along Decode's one-pass path only (see package
// jsonscan), and leaves s after it: a caller that reads the object inside
// a larger text (the guard's request) reads it once. ok is false for any
// object that path declines, s then anywhere: the caller reads the text
// again, and gives it to Decode, which says why. A line it accepts is one
// Decode(text, 0, true) gives the same Line (TestDecodeFastAgrees); the
// caller numbers it ([Line.At]) and checks that a step has an action.
func (d *Decoder) DecodeFast(s *jsonscan.Scanner) (Line, bool) {
	d.lr.n, d.lr.parsed = 0, 0
	return d.lr.parseFastAt(s)
}

// At returns l numbered as the line numbered line of its run.
func (l Line) At(line int) Line {
	l.line = line
	return l
}

// errLineTooLong is the error of a line longer than [MaxLineBytes].
var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineBytes)

// Action returns the index of the action line l takes (into the Model's
// Actions), or -1 for a line that constrains the initial state.
func (l Line) Action() int { return l.action }

// Follower follows runs of one compiled spec a step at a time, each step
// decided before it is taken, for a caller that gates a live run rather
// than judging a recorded one (package guard): a step the spec does not
// allow, or that reaches a violation, is refused and leaves the run where
// it was. A Follower and its [Trail]s are not safe for concurrent use:
// one goroutine at a time calls them.
type Follower struct {
	r *replayer
}

// FollowOptions bounds the memory of each run a [Follower] follows. Its
// zero value is the bounds of a replay.
type FollowOptions struct {
	// MaxHistory is the most step records (12 bytes each) a run keeps for
	// its traces, past which the states it reached become the start of
	// its history; 0: [MaxHistory].
	MaxHistory int
	// MaxStates is the most spec states a run may be consistent with: a
	// step that would leave it consistent with more is refused
	// ([Result.Ambiguous]); 0: no limit.
	MaxStates int
}

// NewFollower returns a Follower of prog.
func NewFollower(prog *machine.Program, opts FollowOptions) (*Follower, error) {
	r, err := newReplayer(prog)
	if err != nil {
		return nil, err
	}
	if opts.MaxHistory > 0 {
		r.maxRecords = opts.MaxHistory
	}
	r.maxStates = opts.MaxStates
	return &Follower{r: r}, nil
}

// Trail is one run a [Follower] follows: the spec states consistent with
// the steps taken so far, and their history.
type Trail struct {
	f  *Follower
	rs *runState
}

// Start begins a run at the spec's initial states. The Result is nil,
// or the violation the initial states reach (the init block fails, or an
// invariant is false in one); a run with such a Result takes no step.
func (f *Follower) Start() (*Trail, *Result) {
	t := &Trail{f: f, rs: f.r.start()}
	if t.rs.done != nil {
		return t, t.rs.done
	}
	return t, nil
}

// Step takes the step of l, from [Decoder.Decode]: nil when the spec
// allows it from a state consistent with the run and no violation is
// reached after it (invariants, past-time ones included, assertions and
// runtime errors), the run then having taken it; else the divergence or
// the violation (with its trace), the run left where it was. A first line
// without action constrains the initial states instead of taking a step.
func (t *Trail) Step(l Line) *Result {
	if t.rs.done != nil {
		return t.rs.done
	}
	if l.action < 0 && t.rs.started {
		return &Result{Steps: t.rs.steps, Diverged: &Divergence{Line: l.line, Action: "(initial state)", Allowed: t.Allowed()}}
	}
	return t.rs.advance(l)
}

// Steps is the number of steps taken.
func (t *Trail) Steps() int { return t.rs.steps }

// States is the number of spec states consistent with the run.
func (t *Trail) States() int { return len(t.rs.cur) }

// Trace returns the steps of the run from its start (or from where its
// history was cut, [MaxHistory]) to the first spec state consistent with
// it, as a search's trace: step 0 the initial state.
func (t *Trail) Trace() []verdict.Step {
	if len(t.rs.cur) == 0 {
		return nil
	}
	return t.rs.rebuild(t.rs.cur[0].rec)
}

// Allowed lists the actions the spec allows next (enabled, with a branch,
// in some state consistent with the run), in the model's order. The list
// may be shared with other calls: read it, do not change it.
func (t *Trail) Allowed() []string {
	return t.f.r.allowed(t.rs.cur)
}

// Next returns the actions the spec allows next (as [Trail.Allowed]);
// whether the run is stuck: no action can take it on from any state
// consistent with it (an action that fails there counts as one: taking
// it is refused as a violation); and whether every such state satisfies
// the spec's terminal predicate (a stuck run that is not terminal is in
// a deadlock of the spec). One expansion of the run's states answers all
// three.
func (t *Trail) Next() (allowed []string, stuck, terminal bool) {
	r := t.f.r
	allowed, some := r.enabled(t.rs.cur)
	terminal = len(t.rs.cur) > 0
	for _, c := range t.rs.cur {
		if ok, err := r.mach.IsTerminal(c.state); err != nil || !ok {
			terminal = false
			break
		}
	}
	return allowed, !some, terminal
}

// Key returns a digest of the spec states consistent with the run and the
// steps taken, equal for two trails of one Follower that took the same
// steps: what tests compare a run restored from a journal with.
func (t *Trail) Key() string {
	keys := make([]string, len(t.rs.cur))
	for i, c := range t.rs.cur {
		keys[i] = stateKey(c.state)
	}
	slices.Sort(keys)
	out := []byte{byte(t.rs.steps), byte(t.rs.steps >> 8), byte(t.rs.steps >> 16), byte(t.rs.steps >> 24)}
	for _, k := range keys {
		out = append(out, k...)
	}
	return string(out)
}

// CheckDuplicateKeys reports an object of the JSON text with a key given
// twice (encoding/json would keep the last one silently), as a run line's
// check does; text that is not JSON passes.
func CheckDuplicateKeys(text []byte) error { return checkDuplicateKeys(text) }

// MappedStep is a step that a mapping makes of a span (or of an event of
// a span): the run line, as the JSON of a line of a run file, and the run
// it belongs to.
type MappedStep struct {
	Key   string          // the run key ("" when the span has none)
	Event json.RawMessage // the run line
	Span  SpanRef         // where it comes from
}

// MapRequest maps the spans of data, one OTLP JSON ExportTraceServiceRequest,
// through the mapping into the steps they are, ordered as in a recording,
// for a caller that receives spans one request at a time (package guard);
// spans no rule maps are skipped. The error reports a request that is
// not OTLP JSON or an attribute the mapping cannot read, as [ReadOTLP]
// does (with name for the file and line 1).
func (mp *Mapping) MapRequest(name string, data []byte) ([]MappedStep, error) {
	spans, err := decodeRequest(name, 1, data, 0)
	if err != nil {
		return nil, err
	}
	for i, sp := range spans {
		sp.order = i
	}
	steps, _, keys := mp.collect(spans)
	out := make([]MappedStep, 0, len(steps))
	for _, st := range steps {
		var ev *event
		ref := spanRef(st.sp)
		if st.ev >= 0 {
			ev = &st.sp.events[st.ev]
			ref.Event = ev.name
		}
		text, err := mp.stepJSON(st.rule, st.sp, ev)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", name, ref, err)
		}
		out = append(out, MappedStep{Key: keys[st.sp], Event: text, Span: ref})
	}
	return out, nil
}
