// Package replay checks a recorded run of a real wrapper against its spec
// (TLC's trace validation, for agent telemetry): [Read] parses the run, one
// JSON object a line, and [Check] follows it through the spec's states and
// reports the first line the spec does not allow or the first violation
// the run reaches. The format is documented in docs/replay.md.
package replay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// runLine is one line of a recorded run. Step is accepted, and ignored,
// so that the trace of `check --format json` replays as it is.
type runLine struct {
	Step   *int                       `json:"step"`
	Action *string                    `json:"action"`
	Asked  map[string]json.RawMessage `json:"asked"`
	State  map[string]json.RawMessage `json:"state"`
	// Monitors (the past-time monitors that change, in a check trace) is
	// accepted and ignored: the replay recomputes them.
	Monitors map[string]json.RawMessage `json:"monitors"`
}

// Line is a parsed line: the action index (-1: the initial state), the
// recorded variables (index into Model.Vars, encoded value) and answers.
type Line struct {
	line   int
	action int
	vars   []wantVar
	asked  []checker.Answer
}

type wantVar struct {
	v   *spec.Var
	val []int64
}

// cand is a state of the spec consistent with the run so far.
type cand struct {
	state  machine.State
	parent *cand
	action int
	asked  []checker.Answer
}

// MaxLineBytes is the longest line of a run file (1 MiB): a longer one
// is an error that names the line, read no further than the limit.
const MaxLineBytes = 1 << 20

// Read parses a recorded run (named name in errors): one JSON object a
// line, blank lines skipped. Names and values are checked against m.
// [Run] checks a run as it reads it, without keeping its lines.
func Read(m *spec.Model, name string, r io.Reader) ([]Line, error) {
	lr := newLineReader(m, name, r)
	var out []Line
	for {
		l, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, l)
	}
}

// lineReader reads and parses the lines of a run one at a time, in
// memory bounded by [MaxLineBytes].
type lineReader struct {
	m       *spec.Model
	name    string
	r       *bufio.Reader
	n       int // lines read
	parsed  int // non-blank lines parsed
	buf     []byte
	actions map[string]int
	vars    map[string]*spec.Var
	agents  map[string]int
}

func newLineReader(m *spec.Model, name string, r io.Reader) *lineReader {
	lr := &lineReader{m: m, name: name, r: bufio.NewReaderSize(r, 64<<10),
		actions: map[string]int{}, vars: map[string]*spec.Var{}, agents: map[string]int{}}
	for i, a := range m.Actions {
		lr.actions[a.Name] = i
	}
	for _, v := range m.Vars {
		if v.Monitor == nil { // replay recomputes the past-time monitors
			lr.vars[v.Name] = v
		}
	}
	for i, a := range m.Agents {
		lr.agents[a.Name] = i
	}
	return lr
}

// readLine returns the next line without its line end (\n or \r\n), or
// ok false at the end of the input.
func (lr *lineReader) readLine() (line []byte, ok bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > MaxLineBytes+2 { // +2: the line end
			return nil, false, fmt.Errorf("%s:%d: line longer than %d bytes", lr.name, lr.n+1, MaxLineBytes)
		}
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(lr.buf) == 0 {
				return nil, false, nil
			}
		case err != nil:
			return nil, false, fmt.Errorf("%s: %w", lr.name, err)
		}
		lr.n++
		line = bytes.TrimSuffix(bytes.TrimSuffix(lr.buf, []byte("\n")), []byte("\r"))
		if len(line) > MaxLineBytes {
			return nil, false, fmt.Errorf("%s:%d: line longer than %d bytes", lr.name, lr.n, MaxLineBytes)
		}
		return line, true, nil
	}
}

// next returns the next non-blank line, parsed, or ok false at the end.
func (lr *lineReader) next() (Line, bool, error) {
	for {
		raw, ok, err := lr.readLine()
		if err != nil || !ok {
			return Line{}, false, err
		}
		text := bytes.TrimSpace(raw)
		if len(text) == 0 {
			continue
		}
		l, err := lr.parse(text)
		if err != nil {
			return Line{}, false, fmt.Errorf("%s:%d: %w", lr.name, lr.n, err)
		}
		lr.parsed++
		return l, true, nil
	}
}

// parse parses one non-blank line.
func (lr *lineReader) parse(text []byte) (Line, error) {
	m := lr.m
	if err := checkDuplicateKeys(text); err != nil {
		return Line{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var l runLine
	if err := dec.Decode(&l); err != nil {
		if k, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			k, _ = strconv.Unquote(k)
			return Line{}, fmt.Errorf("unknown member %q (a line has action, asked, state and step)", clip(k, 80))
		}
		return Line{}, errors.New(clip(err.Error(), 200))
	}
	if dec.More() {
		return Line{}, errors.New("expected one JSON object per line, found more after it")
	}
	w := Line{line: lr.n, action: -1}
	if l.Action != nil {
		a, ok := lr.actions[*l.Action]
		if !ok {
			return Line{}, fmt.Errorf("no action %s in %s%s", clip(*l.Action, 80), m.Name, spec.DidYouMean(spec.Suggest(*l.Action, sortedKeys(lr.actions))))
		}
		w.action = a
	} else if lr.parsed > 0 {
		return Line{}, errors.New("only the first line may omit the action (it constrains the initial state)")
	}
	for _, k := range sortedKeys(l.State) {
		v, ok := lr.vars[k]
		if !ok {
			return Line{}, fmt.Errorf("state: no variable %s in %s%s", clip(k, 80), m.Name, spec.DidYouMean(spec.Suggest(k, sortedKeys(lr.vars))))
		}
		val, err := encodeValue(v.Type, l.State[k])
		if err != nil {
			return Line{}, fmt.Errorf("state.%s: %v", k, err)
		}
		w.vars = append(w.vars, wantVar{v, val})
	}
	for _, k := range sortedKeys(l.Asked) {
		ag, ok := lr.agents[k]
		if !ok {
			return Line{}, fmt.Errorf("asked: no agent %s in %s%s", clip(k, 80), m.Name, spec.DidYouMean(spec.Suggest(k, sortedKeys(lr.agents))))
		}
		val, err := encodeValue(m.Agents[ag].Result, l.Asked[k])
		if err != nil {
			return Line{}, fmt.Errorf("asked.%s: %v", k, err)
		}
		w.asked = append(w.asked, checker.Answer{Agent: ag, Value: val})
	}
	slices.SortFunc(w.asked, func(a, b checker.Answer) int { return a.Agent - b.Agent })
	return w, nil
}

// clip returns s cut to at most n bytes (at a rune boundary) with "..."
// after it when cut, so that no message echoes a huge input in full.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// checkDuplicateKeys reports an object of the JSON text with a key given
// twice: encoding/json would keep the last one silently. It scans the
// text once without decoding it; text that is not JSON passes (the
// decoder then reports it).
func checkDuplicateKeys(text []byte) error {
	type frame struct {
		keys map[string]bool // nil: an array
	}
	var stack []frame
	expectKey := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{':
			stack = append(stack, frame{keys: map[string]bool{}})
			expectKey = true
		case '[':
			stack = append(stack, frame{})
			expectKey = false
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].keys != nil
		case '"':
			j := i + 1
			escaped := false
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			if j >= len(text) {
				return nil
			}
			if expectKey {
				k := string(text[i+1 : j])
				if escaped || !utf8.ValidString(k) {
					// The key as the decoder reads it (escapes; an invalid
					// byte becomes U+FFFD).
					if err := json.Unmarshal(text[i:j+1], &k); err != nil {
						return nil
					}
				}
				top := stack[len(stack)-1].keys
				if top[k] {
					return fmt.Errorf("duplicate key %q", clip(k, 80))
				}
				top[k] = true
				expectKey = false
			}
			i = j
		}
	}
	return nil
}

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// encodeValue turns the JSON of a value (as `check --format json` prints
// it) into the unpacked slots of type t.
func encodeValue(t *spec.Type, raw json.RawMessage) ([]int64, error) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	out := make([]int64, t.Width)
	return out, encodeInto(t, x, out)
}

func encodeInto(t *spec.Type, x any, out []int64) error {
	switch t.Kind {
	case spec.BoolKind:
		b, ok := x.(bool)
		if !ok {
			return fmt.Errorf("expected true or false, found %s", jsonText(x))
		}
		out[0] = 0
		if b {
			out[0] = 1
		}
		return nil
	case spec.EnumKind, spec.SymmetricKind:
		s, ok := x.(string)
		if i := slices.Index(t.Names, s); ok && i >= 0 {
			out[0] = int64(i)
			return nil
		}
		return fmt.Errorf("expected one of %s, found %s", strings.Join(t.Names, ", "), jsonText(x))
	case spec.ArrayKind:
		n, w := int(t.Index.Size()), t.Elem.Width
		if t.Index.Kind == spec.EnumKind || t.Index.Kind == spec.SymmetricKind {
			obj, ok := x.(map[string]any)
			if !ok || len(obj) != n {
				return fmt.Errorf("expected an object with the %d keys %s, found %s", n, strings.Join(t.Index.Names, ", "), jsonText(x))
			}
			for i, k := range t.Index.Names {
				el, ok := obj[k]
				if !ok {
					return fmt.Errorf("missing key %s", k)
				}
				if err := encodeInto(t.Elem, el, out[i*w:(i+1)*w]); err != nil {
					return fmt.Errorf("[%s]: %w", k, err)
				}
			}
			return nil
		}
		arr, ok := x.([]any)
		if !ok || len(arr) != n {
			return fmt.Errorf("expected an array of %d elements, found %s", n, jsonText(x))
		}
		for i, el := range arr {
			if err := encodeInto(t.Elem, el, out[i*w:(i+1)*w]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case spec.RecordKind:
		obj, ok := x.(map[string]any)
		if !ok || len(obj) != len(t.Fields) {
			return fmt.Errorf("expected an object with every field of the record, found %s", jsonText(x))
		}
		for _, fd := range t.Fields {
			el, ok := obj[fd.Name]
			if !ok {
				return fmt.Errorf("missing field %s", fd.Name)
			}
			if err := encodeInto(fd.Type, el, out[fd.Offset:fd.Offset+fd.Type.Width]); err != nil {
				return fmt.Errorf(".%s: %w", fd.Name, err)
			}
		}
		return nil
	case spec.SetKind:
		arr, ok := x.([]any)
		if !ok {
			return fmt.Errorf("expected an array (a set), found %s", jsonText(x))
		}
		var mask int64
		el := make([]int64, 1)
		for _, e := range arr {
			if err := encodeInto(t.Elem, e, el); err != nil {
				return err
			}
			mask |= 1 << uint(el[0]-t.Elem.Lo)
		}
		out[0] = mask
		return nil
	}
	// an integer range
	num, ok := x.(json.Number)
	if !ok {
		return fmt.Errorf("expected an integer, found %s", jsonText(x))
	}
	v, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%s is out of range %d..%d", clip(num.String(), 80), t.Lo, t.Hi)
		}
		return fmt.Errorf("expected an integer, found %s", clip(num.String(), 80))
	}
	if v < t.Lo || v > t.Hi {
		return fmt.Errorf("%d is out of range %d..%d", v, t.Lo, t.Hi)
	}
	out[0] = v
	return nil
}

// jsonText returns x as JSON, clipped to 80 bytes.
func jsonText(x any) string {
	b, _ := json.Marshal(x)
	return clip(string(b), 80)
}

// replayer follows a run through the spec. It keeps every state of the
// spec consistent with the run so far (a log may leave the state
// under-determined: then all are followed).
type replayer struct {
	m    *spec.Model
	prog *machine.Program
	mach *machine.Machine
	invs []*machine.Pred

	states, transitions int64
}

// Check replays the run lines (from [Read]) on m: from the initial
// states, each line must be a successor by its action whose state and
// agent answers match what the line records; every invariant is checked
// on the way, and an assertion or runtime error met in a state the run
// reaches is a violation too. The error reports a model the engine cannot
// compile.
func Check(m *spec.Model, lines []Line) (*Result, error) {
	i := 0
	return check(m, func() (Line, bool, error) {
		if i == len(lines) {
			return Line{}, false, nil
		}
		i++
		return lines[i-1], true, nil
	})
}

// Run reads a recorded run from r (named name in errors) and replays it
// on m as [Read] and [Check] do, one line at a time: the run is never held
// whole in memory (what grows with its length is one spec state per step,
// kept for the trace of a violation), and no line is read after the one
// where the run diverges or reaches a violation. The error reports a
// malformed line (file:line: message), an I/O error, or a model the
// engine cannot compile.
func Run(m *spec.Model, name string, r io.Reader) (*Result, error) {
	return check(m, newLineReader(m, name, r).next)
}

func check(m *spec.Model, next func() (Line, bool, error)) (*Result, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	r := &replayer{m: m, prog: prog, mach: prog.NewMachine()}
	r.mach.RecordAnswers(true)
	for _, in := range m.Invariants {
		pr, err := prog.CompileExpr(in.Expr)
		if err != nil {
			return nil, err
		}
		r.invs = append(r.invs, pr)
	}
	res, err := r.replay(next)
	if err != nil {
		return nil, err
	}
	res.States, res.Transitions = r.states, r.transitions
	return &res, nil
}

// Result is the outcome of a replay: the run conforms (neither Diverged
// nor Violation), diverges at a line, or reaches a violation.
type Result struct {
	Steps     int                // lines replayed before the end, the divergence or the violation
	Finals    int                // spec states consistent with the whole run
	Diverged  *Divergence        // the first line the spec does not allow
	Violation *checker.Violation // a violation the run reaches, with its trace
	Line      int                // the line where the violation was reached (0: initial state)
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

func (r *replayer) replay(next func() (Line, bool, error)) (Result, error) {
	var cur []*cand
	seen := map[string]bool{}
	add := func(list []*cand, c *cand) []*cand {
		k := stateKey(c.state)
		if seen[k] {
			return list
		}
		seen[k] = true
		r.states++
		return append(list, c)
	}
	err := r.mach.Init(func(_ int, t machine.State) {
		cur = add(cur, &cand{state: slices.Clone(t), action: -1})
	})
	if err != nil {
		return Result{Violation: r.execViolation(err, nil, -1, nil), Line: 0}, nil
	}
	w, more, err := next()
	if err != nil {
		return Result{}, err
	}
	if more && w.action < 0 {
		var keep []*cand
		for _, c := range cur {
			if r.matches(c.state, w.vars) {
				keep = append(keep, c)
			}
		}
		if len(keep) == 0 {
			var near closest
			for _, c := range cur {
				r.consider(&near, c.state, w.asked, Line{vars: w.vars})
			}
			return Result{Diverged: &Divergence{Line: w.line, Action: "(initial state)", Enabled: true,
				Mismatch: near.mismatch, Allowed: r.allowed(cur)}}, nil
		}
		cur = keep
		cur[0].asked = w.asked
		if w, more, err = next(); err != nil {
			return Result{}, err
		}
	}
	for _, c := range cur {
		if v := r.checkInvariants(c); v != nil {
			return Result{Violation: v, Line: 0}, nil
		}
	}
	steps := 0
	for ; more; w, more, err = next() {
		clear(seen)
		var succ []*cand
		enabled := false
		var near closest
		for _, c := range cur {
			err := r.mach.Successors(c.state, func(a, _ int, t machine.State) {
				r.transitions++
				if a != w.action {
					return
				}
				enabled = true
				if r.matches(t, w.vars) && answersMatch(r.mach.Asked(), w.asked) {
					succ = add(succ, &cand{state: slices.Clone(t), parent: c, action: a, asked: cloneAnswers(r.mach.Asked())})
				} else if len(succ) == 0 {
					r.consider(&near, t, r.mach.Asked(), w)
				}
			})
			if err != nil {
				return Result{Steps: steps, Violation: r.execViolation(err, c, w.action, w.asked), Line: w.line}, nil
			}
		}
		if len(succ) == 0 {
			d := &Divergence{Line: w.line, Action: r.m.Actions[w.action].Name, Enabled: enabled, Allowed: r.allowed(cur)}
			if enabled {
				d.Mismatch = near.mismatch
			}
			return Result{Steps: steps, Diverged: d}, nil
		}
		steps++
		for _, c := range succ {
			if v := r.checkInvariants(c); v != nil {
				return Result{Steps: steps, Violation: v, Line: w.line}, nil
			}
		}
		cur = succ
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Steps: steps, Finals: len(cur)}, nil
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
	st := r.unpack(s)
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

// allowed lists the actions enabled in some current state, in model order.
func (r *replayer) allowed(cur []*cand) []string {
	on := make([]bool, len(r.m.Actions))
	for _, c := range cur {
		_ = r.mach.Successors(c.state, func(a, _ int, _ machine.State) { on[a] = true })
	}
	var out []string
	for i, ok := range on {
		if ok {
			out = append(out, r.m.Actions[i].Name)
		}
	}
	return out
}

// trace rebuilds the steps from an initial state to c.
func (r *replayer) trace(c *cand) []checker.Step {
	var steps []checker.Step
	for ; c != nil; c = c.parent {
		steps = append(steps, checker.Step{Action: c.action, State: r.unpack(c.state), Asked: c.asked})
	}
	slices.Reverse(steps)
	return steps
}

func (r *replayer) checkInvariants(c *cand) *checker.Violation {
	for i, pr := range r.invs {
		in := r.m.Invariants[i]
		v, err := r.mach.Eval(pr, c.state)
		if err != nil {
			var ee *machine.ExecError
			if errors.As(err, &ee) {
				return &checker.Violation{Name: in.Name, Kind: ee.Kind, Pos: ee.Pos, Msg: ee.Msg, Trace: r.trace(c), LoopStart: -1}
			}
			return &checker.Violation{Name: in.Name, Kind: checker.RuntimeError, Pos: in.Pos, Msg: err.Error(), Trace: r.trace(c), LoopStart: -1}
		}
		if v == 0 {
			return &checker.Violation{Name: in.Name, Kind: checker.Invariant, Pos: in.Pos, Trace: r.trace(c), LoopStart: -1}
		}
	}
	return nil
}

// execViolation reports a failure met while executing the successors of
// c (nil: the init block): the trace to c, then the failing action.
func (r *replayer) execViolation(err error, c *cand, action int, asked []checker.Answer) *checker.Violation {
	var ee *machine.ExecError
	if !errors.As(err, &ee) {
		ee = &machine.ExecError{Kind: checker.RuntimeError, Msg: err.Error(), Action: action}
	}
	name := "init"
	if ee.Action >= 0 {
		name = r.m.Actions[ee.Action].Name
	}
	var trace []checker.Step
	if c != nil {
		trace = r.trace(c)
		if ee.Action != action {
			asked = nil
		}
		trace = append(trace, checker.Step{Action: ee.Action, State: slices.Clone(trace[len(trace)-1].State), Asked: asked})
	} else {
		trace = []checker.Step{{Action: -1, State: make([]int64, r.prog.Slots())}}
	}
	return &checker.Violation{Name: name, Kind: ee.Kind, Pos: ee.Pos, Msg: ee.Msg, Trace: trace, LoopStart: -1}
}

// answersMatch reports whether the answers a branch took include every
// answer the recorded line names (an agent asked twice on one step
// matches when any of its answers is the recorded one).
func answersMatch(got, want []checker.Answer) bool {
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g checker.Answer) bool {
			return g.Agent == w.Agent && slices.Equal(g.Value, w.Value)
		}) {
			return false
		}
	}
	return true
}

func cloneAnswers(as []checker.Answer) []checker.Answer {
	var out []checker.Answer
	for _, a := range as {
		out = append(out, checker.Answer{Agent: a.Agent, Value: slices.Clone(a.Value)})
	}
	return out
}
