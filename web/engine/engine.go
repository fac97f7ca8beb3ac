// Package engine is the checker behind the browser playground: each
// operation takes a spec's source text and returns JSON, so that the same
// code answers in the page (compiled to WebAssembly, package web/wasm) and
// behind `wrapcheck ui` (natively, over HTTP).
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/wrapcheck/wrapcheck/examples"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Default limits of a request that gives none: a student's runaway spec
// stops with verdict "unknown" instead of freezing the tab.
const (
	DefaultMaxStates = 200000
	DefaultTimeout   = 20 * time.Second
	// MemoryBudget bounds the Go heap of a check's search, in bytes
	// (verify.Options.MemoryBudget): one state of a hundred thousand
	// large successors stops there, not at the machine's memory.
	MemoryBudget = 256 << 20
	// MaxSource is the largest spec source accepted, in bytes.
	MaxSource = 1 << 20
	// MaxGraphStates bounds the state graph drawn in the page.
	MaxGraphStates = 300
)

// Request is one operation's input, as the page sends it.
type Request struct {
	// Op is "check", "vet", "fmt", "graph", "explore" or "watch".
	Op string `json:"op"`
	// Name is the file name shown in positions ("spec.wrap" when empty).
	Name   string `json:"name"`
	Source string `json:"source"`
	// Defines are -D overrides, NAME to value.
	Defines map[string]int64 `json:"defines,omitempty"`
	// MaxStates and TimeoutMS are the search limits (0: the defaults;
	// the native server may raise them).
	MaxStates int64 `json:"max_states,omitempty"`
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Slots is the state the explorer expands (op "explore"): the
	// "slots" of a trace step or of a successor from an earlier answer;
	// nil for the initial states.
	Slots []int64 `json:"slots,omitempty"`
	// Watches are expressions of the spec to evaluate at every step of
	// the trace (ops "check" and "watch"; at most MaxWatches), as check
	// --watch does. Each is one line; a refused one does not reject the
	// spec: its Watch in the response carries the error.
	Watches []string `json:"watches,omitempty"`
	// Trace is the states the watches are evaluated in (op "watch"): the
	// trace_slots of an earlier check of the same source.
	Trace [][]int64 `json:"trace,omitempty"`
}

// Diagnostic is an error or warning at a position (line and col from 1;
// 0 when the message has no position).
type Diagnostic struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Msg  string `json:"msg"`
	Text string `json:"text"` // "file:line:col: msg"
}

// Response is one operation's output. Exactly the fields of its op are
// set; Errors is set instead when the spec is rejected.
type Response struct {
	Op       string       `json:"op"`
	Errors   []Diagnostic `json:"errors,omitempty"`
	Warnings []Diagnostic `json:"warnings,omitempty"`
	// Report is report.JSON's object (op "check").
	Report json.RawMessage `json:"report,omitempty"`
	// TraceSlots are the unpacked states of the first violation's trace,
	// step by step, for the explorer (op "check").
	TraceSlots [][]int64 `json:"trace_slots,omitempty"`
	// TraceText is the same trace as the text report prints it, step by
	// step, in wrap's notation (op "check").
	TraceText []StepText `json:"trace_text,omitempty"`
	// Mermaid is report.Mermaid's sequence diagram of the violation
	// (op "check", when there is one).
	Mermaid string `json:"mermaid,omitempty"`
	// Text is report.Text's report (op "check"); Operands the values of
	// the violated invariant's parts in the last state, as it lists them
	// ("shipped == approved: false").
	Text     string   `json:"text,omitempty"`
	Operands []string `json:"operands,omitempty"`
	// Prob is report.QuantJSON's object, the values of the spec's
	// probability and expected-cost queries (op "check", when it has
	// any: docs/language.md, "Probabilities"); ProbError says why they
	// could not be computed (a limit, a rate that cannot be followed).
	Prob      json.RawMessage `json:"prob,omitempty"`
	ProbError string          `json:"prob_error,omitempty"`
	// Formatted is the canonical layout (op "fmt").
	Formatted string `json:"formatted,omitempty"`
	// DOT is the state graph (op "graph"); Truncated when it was cut at
	// MaxGraphStates.
	DOT       string `json:"dot,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Explore is the explorer's answer (op "explore").
	Explore *Explore `json:"explore,omitempty"`
	// Watches are the request's watches, in its order, each with its
	// value at every step of the first violation's trace (op "check") or
	// of the request's Trace (op "watch"), or the error that refused it.
	Watches []Watch `json:"watches,omitempty"`
}

// Explore lists the successors of one state: every enabled action with
// every combination of agent answers it may take.
type Explore struct {
	// State is the expanded state (null for the initial states).
	State json.RawMessage `json:"state"`
	// StateText is the expanded state as the text report prints it,
	// `name = value` (none for the initial states).
	StateText []string    `json:"state_text,omitempty"`
	Next      []Successor `json:"next"`
	// Error is the runtime error or failed assertion met while expanding.
	Error string `json:"error,omitempty"`
}

// Successor is one step out of the explored state.
type Successor struct {
	Action string          `json:"action"` // "" for an initial state
	Asked  json.RawMessage `json:"asked,omitempty"`
	State  json.RawMessage `json:"state"`
	Slots  []int64         `json:"slots"`
	// Text is the step as the text report prints it: what it changed in
	// the explored state (every variable of an initial state).
	Text StepText `json:"text"`
}

// StepText is one step of a trace as the text report prints it
// ([report.StepText]): the agent answers (`agent → value`) and the
// changed variables (`path = value`), in wrap's notation.
type StepText struct {
	Asked   []string `json:"asked,omitempty"`
	Changed []string `json:"changed"`
}

func stepText(m *spec.Model, trace []verdict.Step, i int) StepText {
	asked, changed := report.StepText(m, trace, i)
	if changed == nil {
		changed = []string{}
	}
	return StepText{Asked: asked, Changed: changed}
}

// Progress is what Run reports while a check searches.
type Progress struct {
	States  int64 `json:"states"`
	Depth   int   `json:"depth"`
	Elapsed int64 `json:"elapsed_ms"`
}

// Run answers req. progress, when not nil, is called now and then during
// a check. A search stops when ctx is done, at the request's limits or
// at the defaults. Run never panics on bad input: every error of the
// spec is a Diagnostic in the response.
func Run(ctx context.Context, req Request, progress func(Progress)) (resp *Response) {
	resp = &Response{Op: req.Op}
	defer func() {
		if r := recover(); r != nil {
			resp = &Response{Op: req.Op, Errors: []Diagnostic{{Msg: fmt.Sprintf("internal error: %v", r), Text: fmt.Sprintf("internal error: %v", r)}}}
		}
	}()
	name := req.Name
	if name == "" {
		name = "spec.wrap"
	}
	if len(req.Source) > MaxSource {
		resp.Errors = []Diagnostic{plain(fmt.Sprintf("%s: the spec is larger than %d MiB", name, MaxSource>>20))}
		return resp
	}
	src := []byte(req.Source)
	file, err := syntax.Parse(name, src)
	if err != nil {
		resp.Errors = diagnostics(err)
		return resp
	}
	if req.Op == "fmt" {
		resp.Formatted = string(syntax.Format(file))
		return resp
	}
	m, ws, err := checkWatched(ctx, file, req)
	if err != nil {
		resp.Errors = diagnostics(err)
		return resp
	}
	resp.Watches = ws
	var vet []report.Diagnostic
	for _, w := range spec.Vet(file, m) {
		vet = append(vet, report.Diagnostic{Pos: w.Pos, Msg: w.Msg})
		resp.Warnings = append(resp.Warnings, diagnostic(w.Pos, w.Msg))
	}
	switch req.Op {
	case "vet":
		return resp
	case "check":
		err = check(ctx, resp, m, vet, req, progress)
	case "graph":
		err = graph(ctx, resp, m)
	case "explore":
		err = explore(resp, m, req.Slots)
	case "watch":
		err = watch(resp, m, req.Trace)
	default:
		err = fmt.Errorf("unknown operation %q: want check, vet, fmt, graph, explore or watch", req.Op)
	}
	if err != nil {
		resp.Errors = append(resp.Errors, diagnostics(err)...)
	}
	return resp
}

func check(ctx context.Context, resp *Response, m *spec.Model, vet []report.Diagnostic, req Request, progress func(Progress)) error {
	// Workers 0: one per core natively, one under js/wasm (GOMAXPROCS 1)
	opts := verify.Options{MaxStates: req.MaxStates, MemoryBudget: MemoryBudget}
	if opts.MaxStates <= 0 {
		opts.MaxStates = DefaultMaxStates
	}
	timeout := time.Duration(req.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx = newPollContext(ctx, timeout)
	if progress != nil {
		opts.Progress = func(p verdict.Progress) {
			progress(Progress{States: p.States, Depth: p.Depth, Elapsed: p.Elapsed.Milliseconds()})
		}
	}
	var err error
	if opts.Program, err = machine.Compile(m); err != nil {
		return err
	}
	res, err := verify.Run(ctx, m, opts)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := (report.JSONOptions{Warnings: vet}).Render(&b, m, res); err != nil {
		return err
	}
	resp.Report = json.RawMessage(b.Bytes())
	if vs := report.Violations(res); len(vs) > 0 {
		for i, st := range vs[0].Trace {
			resp.TraceSlots = append(resp.TraceSlots, st.State)
			resp.TraceText = append(resp.TraceText, stepText(m, vs[0].Trace, i))
		}
		if err := evalWatches(m, opts.Program, resp.Watches, resp.TraceSlots); err != nil {
			return err
		}
		var mm bytes.Buffer
		if err := report.Mermaid(&mm, m, res); err == nil {
			resp.Mermaid = mm.String()
		}
	}
	var tb bytes.Buffer
	if err := (report.TextOptions{Explain: true, Warnings: vet}).Render(&tb, m, res); err == nil {
		resp.Text = tb.String()
		resp.Operands = operands(resp.Text)
	}
	if len(m.Queries) > 0 || len(m.Expectations) > 0 {
		prob(ctx, resp, m, int(opts.MaxStates))
	}
	return nil
}

// prob computes the probability and expected-cost queries of m, as
// `wrapcheck prob` does, within the check's limits: at most maxStates
// states, the check's time and memory budget.
func prob(ctx context.Context, resp *Response, m *spec.Model, maxStates int) {
	res, err := quant.Check(ctx, m, quant.Options{MaxStates: maxStates, MemoryBudget: MemoryBudget})
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		resp.ProbError = "the probabilities were not computed: stopped at the time limit"
		return
	case err != nil:
		resp.ProbError = "the probabilities were not computed: " + err.Error()
		return
	}
	var b bytes.Buffer
	if err := report.QuantJSON(&b, m, res); err != nil {
		resp.ProbError = err.Error()
		return
	}
	resp.Prob = json.RawMessage(b.Bytes())
}

// operands returns the lines of the text report's "and its parts
// evaluate to:" section of the first violation.
func operands(text string) []string {
	_, rest, ok := strings.Cut(text, "and its parts evaluate to:\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "         ") {
			break
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// graph draws the state graph of m when it has at most MaxGraphStates
// states, with the counterexample in red.
func graph(ctx context.Context, resp *Response, m *spec.Model) error {
	prog, err := machine.Compile(m)
	if err != nil {
		return err
	}
	g := report.ExploreGraph(prog, MaxGraphStates)
	var v *verdict.Violation
	ctx = newPollContext(ctx, DefaultTimeout)
	if res, err := verify.Run(ctx, m, verify.Options{Workers: 1, MaxStates: MaxGraphStates, Program: prog}); err == nil && res.Verdict == verdict.Violated {
		v = res.Violation
	}
	var b bytes.Buffer
	if err := g.DOT(&b, m, v); err != nil {
		return err
	}
	resp.DOT = b.String()
	resp.Truncated = g.Truncated
	return nil
}

// ExploreGraph builds the state graph of m breadth-first, without
// reduction, keeping at most limit states (report.ExploreGraph, as
// `wrapcheck graph` does).
func ExploreGraph(m *spec.Model, limit int64) (*report.StateGraph, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return report.ExploreGraph(prog, limit), nil
}

// explore lists the successors of the state slots (the initial states
// when slots is nil), each with its action and agent answers.
func explore(resp *Response, m *spec.Model, slots []int64) error {
	prog, err := machine.Compile(m)
	if err != nil {
		return err
	}
	if slots != nil && len(slots) != prog.Slots() {
		return fmt.Errorf("explore: the state has %d slots, the spec %d (was the spec edited?)", len(slots), prog.Slots())
	}
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	steps := []verdict.Step{{Action: -1, State: slots}}
	if slots == nil {
		steps[0].State = make([]int64, prog.Slots())
	}
	visit := func(action int, t machine.State) {
		st := make([]int64, prog.Slots())
		prog.Unpack(st, t)
		steps = append(steps, verdict.Step{Action: action, State: st, Asked: machine.CloneAnswers(mach.Asked())})
	}
	ex := &Explore{}
	if slots == nil {
		err = mach.Init(func(_ int, t machine.State) { visit(-1, t) })
	} else {
		packed := make(machine.State, prog.Words())
		prog.Pack(packed, slots)
		err = mach.Successors(packed, func(action, _ int, t machine.State) { visit(action, t) })
	}
	if err != nil {
		ex.Error = err.Error()
	}
	// Render every state through report.JSON: a trace made of the
	// explored state and its successors.
	res := &verdict.Result{Verdict: verdict.Violated, Violation: &verdict.Violation{Name: "explore", Kind: verdict.Invariant, Trace: steps, LoopStart: -1}}
	var b bytes.Buffer
	if err := report.JSON(&b, m, res); err != nil {
		return err
	}
	var doc struct {
		Violation struct {
			Trace []struct {
				State json.RawMessage `json:"state"`
				Asked json.RawMessage `json:"asked"`
			} `json:"trace"`
		} `json:"violation"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		return err
	}
	tr := doc.Violation.Trace
	if slots != nil {
		ex.State = tr[0].State
		ex.StateText = stepText(m, steps[:1], 0).Changed
	} else {
		ex.State = json.RawMessage("null")
	}
	ex.Next = []Successor{}
	for i, st := range steps[1:] {
		s := Successor{State: tr[i+1].State, Asked: tr[i+1].Asked, Slots: st.State}
		if slots != nil {
			s.Text = stepText(m, []verdict.Step{steps[0], st}, 1)
		} else {
			s.Text = stepText(m, []verdict.Step{st}, 0)
		}
		if st.Action >= 0 {
			s.Action = m.Actions[st.Action].Name
		}
		ex.Next = append(ex.Next, s)
	}
	resp.Explore = ex
	return nil
}

func plain(msg string) Diagnostic { return Diagnostic{Msg: msg, Text: msg} }

func diagnostic(pos spec.Position, msg string) Diagnostic {
	d := Diagnostic{Msg: msg, Text: msg}
	if pos.IsValid() {
		d.Line, d.Col = pos.Line, pos.Col
		d.Text = pos.String() + ": " + msg
	}
	return d
}

// diagnostics splits err into positioned diagnostics.
func diagnostics(err error) []Diagnostic {
	var out []Diagnostic
	for _, d := range report.Diagnostics(err) {
		out = append(out, diagnostic(d.Pos, d.Msg))
	}
	if len(out) == 0 {
		out = append(out, plain(err.Error()))
	}
	return out
}

// Example is one entry of the playground's menu.
type Example struct {
	Path   string `json:"path"`   // "approval/toctou.wrap"
	Lesson string `json:"lesson"` // the spec's leading comment, as a paragraph
	Source string `json:"source"`
}

// Examples returns the bundled examples in path order, each with its
// lesson: the comment block at the top of the file.
func Examples() ([]Example, error) {
	var out []Example
	err := fs.WalkDir(examples.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".wrap") {
			return err
		}
		b, err := fs.ReadFile(examples.FS(), path)
		if err != nil {
			return err
		}
		out = append(out, Example{Path: path, Lesson: lesson(string(b)), Source: string(b)})
		return nil
	})
	return out, err
}

// lesson joins the // comment lines that open src into paragraphs.
func lesson(src string) string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "//") {
			break
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, "//"))
		if t == "" {
			flush()
			continue
		}
		cur = append(cur, t)
	}
	flush()
	return strings.Join(paras, "\n\n")
}
