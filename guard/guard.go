package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/wrapcheck/wrapcheck/internal/jsonscan"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// The defaults of [Options].
const (
	// DefaultMaxRuns is the most runs open at once.
	DefaultMaxRuns = 10000
	// DefaultMaxHistory is the most step records (12 bytes each) a run
	// keeps for its traces: 64Ki, 768 KiB a run.
	DefaultMaxHistory = 1 << 16
	// DefaultMaxEnded is the most ended runs whose last answer is kept,
	// for a client that retries the step that ended its run.
	DefaultMaxEnded = 4096
	// DefaultMaxStates is the most spec states a run may be consistent
	// with (a run whose events leave nondeterminism open follows each).
	DefaultMaxStates = 64
	// MaxRequestBytes is the longest request: a run line's limit
	// ([replay.MaxLineBytes]) and room for the envelope.
	MaxRequestBytes = replay.MaxLineBytes + 4096
	// CompactAfter is the fewest records a journal has for it to be
	// compacted at start (when at least half of them are of runs gone).
	CompactAfter = 1024
	// MaxRunIDBytes is the longest run or request id.
	MaxRunIDBytes = 256
	// ServeGCPercent is the collector's target (GOGC) `wrapcheck guard`
	// serves with unless $GOGC is set: the heap may grow to 5 times what
	// is live between collections, not twice. A serving guard's live heap
	// is its open runs (about 700 bytes each and their histories), small,
	// while the HTTP exchanges make garbage at 4 KB a request: at
	// Go's 100 a collection ran every 4 MB, and its marking was the
	// exchanges' 99th percentile (docs/guard.md, "The collector's pace").
	ServeGCPercent = 400
)

// Options configures a [Guard]. Its zero value is the defaults.
type Options struct {
	// MaxRuns is the most runs open at once; an open past it is blocked.
	// 0: DefaultMaxRuns.
	MaxRuns int
	// MaxHistory is the most step records a run keeps for the trace of a
	// block; past it the run's history restarts from its current states
	// (the trace then starts there). 0: DefaultMaxHistory.
	MaxHistory int
	// MaxStates is the most spec states a run may be consistent with: a
	// step that would leave the run consistent with more is blocked (give
	// the event's state or answers to pin it down). 0: DefaultMaxStates.
	MaxStates int
	// MaxEnded is the most ended runs whose last allowed step is kept, to
	// answer a retry of it again; 0: DefaultMaxEnded.
	MaxEnded int
	// Journal, when not empty, is the path of the journal file: every
	// decision that changes a run is appended and synced before it is
	// answered, and the runs it records are restored by [New].
	Journal string
	// Mapping, when not nil, maps the OTLP spans of requests to events,
	// as `replay --mapping` does ([Request.OTLP]).
	Mapping *replay.Mapping
	// Logger, when not nil, logs every decision (run, id, op, decision,
	// kind, reason, property, step, ended, latency) at level Info.
	Logger *slog.Logger
	// Spans, when not nil, exports an OpenTelemetry span for each
	// decision ([SpanExporter]); the caller closes it after the guard.
	Spans *SpanExporter
	// SpecDigest identifies the spec (source and constants) in the
	// journal: a journal written for another digest is refused.
	SpecDigest string
}

// Decision is the answer to a [Request]. Its JSON form is one line of
// the protocol (docs/guard.md).
type Decision struct {
	Run string `json:"run"`
	ID  string `json:"id,omitempty"`
	// Decision is "allow" or "block".
	Decision string `json:"decision"`
	// Reason says why a request is blocked, in one line.
	Reason string `json:"reason,omitempty"`
	// Kind classifies a block: "diverges" (the spec does not allow the
	// step here), "violated" (the step reaches a violation), "invalid"
	// (the request cannot be mapped: malformed, unknown action, agent,
	// variable or run, a value outside its type), "limit".
	Kind string `json:"kind,omitempty"`
	// Property names the check a violating step violates.
	Property string `json:"property,omitempty"`
	// Step is the number of steps the run has taken after the decision.
	Step int `json:"step"`
	// Allowed lists the actions the spec allows next (on a block, and
	// after an allowed step).
	Allowed []string `json:"allowed,omitempty"`
	// Terminal reports, after an allowed open or step, that every state
	// of the spec consistent with the run satisfies its terminal
	// predicate: the wrapper may stop there (the run stays open while an
	// action can follow).
	Terminal bool `json:"terminal,omitempty"`
	// Ended says the run ended with this decision and left the guard:
	// "terminal" (no action can follow and the state is terminal),
	// "deadlock" (no action can follow in a state that is not terminal),
	// "closed" (an explicit close).
	Ended string `json:"ended,omitempty"`
	// Trace is the run so far, in the JSON of a trace of `check --format
	// json`; for a violation it ends with the violating step.
	Trace json.RawMessage `json:"trace,omitempty"`
	// Mismatch says how the closest step the spec allows differs from
	// the event, for a diverging step of an enabled action.
	Mismatch []string `json:"mismatch,omitempty"`
}

// IsAllowed reports whether the decision allows the request.
func (d *Decision) IsAllowed() bool { return d.Decision == "allow" }

// Request is one request of the protocol.
type Request struct {
	// Op is "step" (the default), "open", "close" or "state".
	Op  string `json:"op,omitempty"`
	Run string `json:"run"`
	// ID, optional, names the request: a step whose ID is the ID of the
	// run's last allowed step is answered that step's decision again
	// (a client retrying after a lost answer takes no step twice).
	ID string `json:"id,omitempty"`
	// Event is the step, a line of a run file (docs/replay.md); for open,
	// optionally a line without action that constrains the initial state.
	Event json.RawMessage `json:"event,omitempty"`
	// OTLP is, instead of Event, the step as an OpenTelemetry span: an
	// ExportTraceServiceRequest in OTLP JSON whose spans the guard's
	// mapping ([Options.Mapping]) makes exactly one step; Run, when
	// empty, is then the span's run key.
	OTLP json.RawMessage `json:"otlp,omitempty"`
	// TraceParent, optional, is the W3C trace context of the wrapper's
	// own span for the step (00-TRACEID-SPANID-FLAGS): the decision's span
	// ([Options.Spans]) is then its child, in its trace. It changes no
	// decision; a malformed one is ignored, as W3C Trace Context says,
	// and the span starts the run's own trace.
	TraceParent string `json:"traceparent,omitempty"`
}

// Guard holds the open runs of one spec and decides each proposed step.
// It is safe for concurrent use; decisions are taken one at a time, in
// one order, which the journal records.
type Guard struct {
	m    *spec.Model
	opts Options

	// decoders read the events of requests with their envelopes
	// (decodeFast), outside the lock, one a request.
	decoders decoderPool

	mu   sync.Mutex // guards what follows, and f and dec
	f    *replay.Follower
	dec  *replay.Decoder
	runs map[string]*run
	// ended keeps the last allowed step of the runs that ended, oldest
	// first in endedOrder, at most MaxEnded of them.
	ended      map[string]*run
	endedOrder []string
	j          *journal
	// closed is set by Close: every decision after it is a block.
	closed bool
	// openedAt is, while the journal is read at start, the line of the
	// last open of each run.
	openedAt map[string]int

	metrics metrics
}

// run is an open run.
type run struct {
	trail  *replay.Trail
	lastID []byte // reused from step to step, as last is
	last   []byte // the answer to lastID
}

// New returns the guard of prog's model. With Options.Journal, it
// restores the runs the journal records (each step decided again, which
// must give the journaled decision) and appends to it.
func New(prog *machine.Program, opts Options) (*Guard, error) {
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	if opts.MaxHistory <= 0 {
		opts.MaxHistory = DefaultMaxHistory
	}
	if opts.MaxStates <= 0 {
		opts.MaxStates = DefaultMaxStates
	}
	if opts.MaxEnded <= 0 {
		opts.MaxEnded = DefaultMaxEnded
	}
	f, err := replay.NewFollower(prog, replay.FollowOptions{MaxHistory: opts.MaxHistory, MaxStates: opts.MaxStates})
	if err != nil {
		return nil, err
	}
	g := &Guard{m: prog.Model, opts: opts, f: f, dec: replay.NewDecoder(prog.Model), runs: map[string]*run{}, ended: map[string]*run{}}
	g.decoders = decoderPool{m: prog.Model, idle: make(chan *replay.Decoder, maxIdleDecoders)}
	if opts.Journal != "" {
		g.openedAt = map[string]int{}
		j, err := openJournal(opts.Journal, prog.Model.Name, opts.SpecDigest, g.restore)
		if err != nil {
			return nil, err
		}
		if err := g.compact(j, opts.Journal); err != nil {
			j.f.Close()
			return nil, err
		}
		g.openedAt = nil
		g.j = j
	}
	return g, nil
}

// Close syncs and closes the journal, if any, and drops the runs: every
// decision after Close is a block.
func (g *Guard) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.runs = map[string]*run{}
	if g.j == nil {
		return nil
	}
	err := g.j.close()
	g.j = nil
	return err
}

// Runs is the number of open runs.
func (g *Guard) Runs() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.runs)
}

// RunKey returns a digest of the state of an open run (see
// [replay.Trail.Key]) and whether it is open: for tests.
func (g *Guard) RunKey(id string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.runs[id]
	if !ok {
		return "", false
	}
	return r.trail.Key(), true
}

// HandleLine decides one request given as its JSON text and returns the
// decision as one line of JSON (with its newline). Any text that is not a
// valid request is answered with a block.
func (g *Guard) HandleLine(line []byte) []byte {
	var buf [256]byte // the answer is built here, then copied at its size
	return bytes.Clone(g.AppendHandleLine(buf[:0], line))
}

// AppendHandleLine is HandleLine that appends the decision to dst and
// returns the extended buffer: a server that reuses its buffer from
// request to request allocates nothing for the answer. The guard keeps
// nothing of line once it returns.
func (g *Guard) AppendHandleLine(dst, line []byte) []byte {
	var fast Request
	var ev fastEvent
	dec := g.decoders.get()
	defer g.decoders.put(dec) // after the decision: ev's Line is dec's
	if len(line) <= MaxRequestBytes && decodeFast(line, &fast, dec, &ev) {
		// fast's strings are line's bytes (decodeFast): what outlives
		// this call copies them (open, keepEnded, observe's logger)
		return g.appendHandle(dst, fast, &ev)
	}
	// declined by the one pass: encoding/json reads it, or says why not
	var req Request
	if err := decodeRequest(line, &req); err != nil {
		t0 := time.Now()
		d := &Decision{Run: clip(req.Run), ID: clip(req.ID), Decision: "block", Kind: "invalid", Reason: err.Error()}
		g.observe(Request{Run: d.Run, ID: d.ID, Op: clip(req.Op)}, d, false, t0)
		return appendDecision(dst, d)
	}
	return g.appendHandle(dst, req, nil)
}

// Handle decides req and returns the decision as one line of JSON.
func (g *Guard) Handle(req Request) []byte {
	var buf [256]byte // as HandleLine's
	return bytes.Clone(g.appendHandle(buf[:0], req, nil))
}

// appendHandle is Handle, appending the decision to out; ev, when not
// nil, is req's event as decodeFast read it.
func (g *Guard) appendHandle(out []byte, req Request, ev *fastEvent) []byte {
	t0 := time.Now()
	var dst Decision // an allowed step's decision, off the heap
	start := len(out)
	d, out, encoded, wait := g.decide(req, ev, &dst, out)
	retried := d == nil
	if !encoded {
		out = appendDecision(out, d)
	}
	if wait != nil {
		if err := wait(); err != nil {
			// The decision may not be durable: it must not be acted on.
			d = &Decision{Run: req.Run, ID: req.ID, Decision: "block", Kind: "internal", Reason: "journal: " + err.Error()}
			out = appendDecision(out[:start], d)
		}
	}
	g.observe(req, d, retried, t0)
	return out
}

// Decide decides req; the decision is durable (journaled and synced)
// when it returns.
func (g *Guard) Decide(req Request) *Decision {
	var d Decision
	if err := json.Unmarshal(g.Handle(req), &d); err != nil {
		panic("wrapcheck internal error: guard: a decision does not decode: " + err.Error())
	}
	return &d
}

// decide takes the decision of req under the lock and appends what it
// changes to the journal; wait, when not nil, returns once that is
// synced. With encoded, the answer (a step's, kept by its run for a
// retry) is appended to out under the lock, else the caller encodes d.
// dst holds an allowed step's or open's decision, the ones decided most
// often, which d then points to (so that they are not allocated).
func (g *Guard) decide(req Request, ev *fastEvent, dst *Decision, out []byte) (d *Decision, _ []byte, encoded bool, wait func() error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return block(req, "internal", "the guard is closed"), out, false, nil
	}
	if len(req.OTLP) > 0 {
		var err error
		if req, err = g.mapSpan(req); err != nil {
			return block(req, "invalid", err.Error()), out, false, nil
		}
		ev = nil // the event is the span's
	}
	if err := checkIDs(req); err != nil {
		return block(req, "invalid", err.Error()), out, false, nil
	}
	d, line, changed := g.apply(req, ev, dst)
	if changed && g.j != nil {
		wait = g.j.append(record(req))
	}
	if line != nil {
		return d, append(out, line...), true, wait
	}
	return d, out, false, wait
}

// apply decides req and applies it to the runs; changed says the
// decision changed them (it is journaled). An allowed step or open is
// written to dst, which d then is. ev, when not nil, is req's event as
// decodeFast read it.
func (g *Guard) apply(req Request, ev *fastEvent, dst *Decision) (d *Decision, line []byte, changed bool) {
	switch req.Op {
	case "open":
		return g.open(req, ev, dst)
	case "", "step":
		return g.step(req, ev, dst)
	case "close":
		if _, ok := g.runs[req.Run]; !ok {
			return &Decision{Run: req.Run, ID: req.ID, Decision: "allow", Ended: "closed"}, nil, false
		}
		delete(g.runs, req.Run)
		return &Decision{Run: req.Run, ID: req.ID, Decision: "allow", Ended: "closed"}, nil, true
	case "state":
		r, ok := g.runs[req.Run]
		if !ok {
			return block(req, "invalid", "no open run "+quote(req.Run)), nil, false
		}
		d := &Decision{Run: req.Run, ID: req.ID, Decision: "allow", Step: r.trail.Steps(), Allowed: r.trail.Allowed()}
		d.Trace = g.traceJSON(r.trail.Trace())
		return d, nil, false
	}
	return block(req, "invalid", "unknown op "+quote(req.Op)+" (open, step, close or state)"), nil, false
}

func (g *Guard) open(req Request, ev *fastEvent, dst *Decision) (*Decision, []byte, bool) {
	if r, ok := g.runs[req.Run]; ok {
		if r.trail.Steps() == 0 {
			// a retried open
			return &Decision{Run: req.Run, ID: req.ID, Decision: "allow", Allowed: r.trail.Allowed()}, nil, false
		}
		return block(req, "invalid", "run "+quote(req.Run)+" is open already"), nil, false
	}
	if len(g.runs) >= g.opts.MaxRuns {
		return block(req, "limit", fmt.Sprintf("%d runs are open: close one first", len(g.runs))), nil, false
	}
	t, res := g.f.Start()
	if res != nil {
		return g.blocked(req, t, res), nil, false
	}
	if len(req.Event) > 0 && !isNull(req.Event) {
		l, err := g.event(req, ev, 0, true)
		if err != nil {
			return block(req, "invalid", "event: "+err.Error()), nil, false
		}
		if l.Action() >= 0 {
			return block(req, "invalid", "event: the event of an open constrains the initial state: it has no action"), nil, false
		}
		if res := t.Step(l); res != nil {
			return g.blocked(req, t, res), nil, false
		}
	}
	g.runs[strings.Clone(req.Run)] = &run{trail: t}
	delete(g.ended, req.Run) // its id is in endedOrder until dropped: harmless
	d := dst
	*d = Decision{Run: req.Run, ID: req.ID, Decision: "allow"}
	g.end(d, t)
	if d.Ended != "" {
		delete(g.runs, req.Run)
	}
	return d, nil, true
}

func (g *Guard) step(req Request, ev *fastEvent, dst *Decision) (*Decision, []byte, bool) {
	r, ok := g.runs[req.Run]
	if !ok {
		if e, ok := g.ended[req.Run]; ok && req.ID != "" && req.ID == string(e.lastID) {
			return nil, e.last, false
		}
		return block(req, "invalid", "no open run "+quote(req.Run)+" (open it first; a run that ended or was closed is gone)"), nil, false
	}
	if req.ID != "" && req.ID == string(r.lastID) {
		return nil, r.last, false
	}
	if len(req.Event) == 0 || isNull(req.Event) {
		return block(req, "invalid", "a step needs an event"), nil, false
	}
	l, err := g.event(req, ev, r.trail.Steps()+1, false)
	if err != nil {
		return block(req, "invalid", "event: "+err.Error()), nil, false
	}
	if res := r.trail.Step(l); res != nil {
		return g.blocked(req, r.trail, res), nil, false
	}
	d := dst
	*d = Decision{Run: req.Run, ID: req.ID, Decision: "allow", Step: r.trail.Steps()}
	g.end(d, r.trail)
	// the run's buffers, reused from step to step: the answer is copied
	// out under the lock (decide)
	r.last = appendDecision(r.last[:0], d)
	r.lastID = append(r.lastID[:0], req.ID...)
	if d.Ended != "" {
		delete(g.runs, req.Run)
		g.keepEnded(req.Run, r)
	}
	return d, r.last, true
}

// mapSpan turns the OTLP span of req into its event, through the
// mapping.
func (g *Guard) mapSpan(req Request) (Request, error) {
	if g.opts.Mapping == nil {
		return req, errors.New("otlp: the guard has no mapping of spans to actions (start it with --mapping)")
	}
	if len(req.Event) > 0 {
		return req, errors.New("a request has an event or otlp, not both")
	}
	if req.Op != "" && req.Op != "step" {
		return req, fmt.Errorf("otlp: only a step is given as a span, not %s", quote(req.Op))
	}
	steps, err := g.opts.Mapping.MapRequest("otlp", req.OTLP)
	if err != nil {
		return req, err
	}
	if len(steps) != 1 {
		return req, fmt.Errorf("otlp: the spans map to %d steps, want one: send the span of one step a request", len(steps))
	}
	st := steps[0]
	switch {
	case req.Run == "":
		req.Run = st.Key
	case st.Key != "" && st.Key != req.Run:
		return req, fmt.Errorf("otlp: the span is of run %s, not %s", quote(st.Key), quote(req.Run))
	}
	req.Event, req.OTLP = st.Event, nil
	return req, nil
}

// keepEnded keeps the last answer of the run id, which ended, dropping
// the oldest kept past MaxEnded.
func (g *Guard) keepEnded(id string, r *run) {
	if len(r.lastID) == 0 {
		return
	}
	// a map assigned to keeps the key it is given, even for a key it has
	id = strings.Clone(id)
	if _, ok := g.ended[id]; !ok {
		g.endedOrder = append(g.endedOrder, id)
	}
	g.ended[id] = &run{lastID: r.lastID, last: r.last}
	for len(g.endedOrder) > g.opts.MaxEnded {
		delete(g.ended, g.endedOrder[0])
		g.endedOrder = g.endedOrder[1:]
	}
}

// end sets d.Allowed, d.Terminal and d.Ended for the run t after an
// allowed step.
func (g *Guard) end(d *Decision, t *replay.Trail) {
	allowed, stuck, terminal := t.Next()
	d.Terminal = terminal
	if !stuck {
		d.Allowed = allowed
		return
	}
	d.Ended = "deadlock"
	if terminal {
		d.Ended = "terminal"
	}
}

// blocked is the decision that blocks req for res, a divergence or a
// violation of the run t.
func (g *Guard) blocked(req Request, t *replay.Trail, res *replay.Result) *Decision {
	d := &Decision{Run: req.Run, ID: req.ID, Decision: "block", Step: t.Steps()}
	switch {
	case res.Ambiguous > 0:
		d.Kind = "limit"
		d.Reason = fmt.Sprintf("the step would leave the run consistent with %d spec states, more than %d: give more of the state or the answers in the event", res.Ambiguous, g.opts.MaxStates)
		d.Allowed = t.Allowed()
	case res.Violation != nil:
		v := res.Violation
		d.Kind = "violated"
		d.Property = v.Name
		d.Reason = report.Escape(report.Headline(g.m, v))
		d.Trace = g.traceJSON(v.Trace)
	case res.Diverged != nil:
		dv := res.Diverged
		d.Kind = "diverges"
		if dv.Enabled {
			d.Reason = report.Escape(dv.Action) + " leads to no state that matches the event's state and answers"
		} else {
			d.Reason = "the spec does not allow " + report.Escape(dv.Action) + " here"
		}
		d.Allowed = dv.Allowed
		d.Mismatch = dv.Mismatch
		d.Trace = g.traceJSON(t.Trace())
	}
	return d
}

func (g *Guard) traceJSON(steps []verdict.Step) json.RawMessage {
	if len(steps) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := report.TraceJSON(&b, g.m, steps); err != nil {
		panic("wrapcheck internal error: guard: " + err.Error())
	}
	return b.Bytes()
}

// restore applies one journal record, at line line, while the journal
// is read.
func (g *Guard) restore(line int, rec []byte) error {
	var req Request
	if err := json.Unmarshal(rec, &req); err != nil {
		return err
	}
	d, _, changed := g.apply(req, nil, new(Decision))
	if !changed {
		why := ""
		if d != nil {
			why = ": " + d.Reason
		}
		return errors.New("deciding this journaled request again does not give its journaled outcome (was the journal written with other limits?)" + why)
	}
	if req.Op == "open" {
		g.openedAt[req.Run] = line
	}
	return nil
}

// compact rewrites the journal j, just read, without the records of runs
// that are gone, when they are most of it: what is kept (the records of
// each open run, and of each ended run whose last answer is kept, from
// its last open) restores the same runs and answers.
func (g *Guard) compact(j *journal, path string) error {
	needed := func(run string) bool {
		_, open := g.runs[run]
		_, ended := g.ended[run]
		return open || ended
	}
	kept := 0
	count := func(line int, rec []byte) bool {
		var req Request
		if json.Unmarshal(rec, &req) == nil && needed(req.Run) && line >= g.openedAt[req.Run] {
			kept++
			return true
		}
		return false
	}
	if j.records < CompactAfter {
		return nil
	}
	if err := j.scan(count); err != nil { // counts what would be kept
		return err
	}
	if kept*2 > j.records {
		return nil
	}
	return j.compact(path, count)
}

// record is the journal record of req, one line.
func record(req Request) []byte {
	req.Event = compact(req.Event)
	b, err := json.Marshal(req)
	if err != nil {
		panic("wrapcheck internal error: guard: " + err.Error())
	}
	return append(b, '\n')
}

func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

func block(req Request, kind, reason string) *Decision {
	return &Decision{Run: clip(req.Run), ID: clip(req.ID), Decision: "block", Kind: kind, Reason: reason}
}

// encode returns d as one line of JSON (appendDecision).
func encode(d *Decision) []byte { return appendDecision(nil, d) }

// appendDecision appends d as one line of JSON, as encoding/json writes it
// (without HTML escapes): directly for the decisions without a trace or
// a mismatch, the ones of the allowed steps (TestEncodeAgrees).
func appendDecision(b []byte, d *Decision) []byte {
	if d.Trace != nil || d.Mismatch != nil {
		return append(b, encodeJSON(*d)...) // a copy: d itself stays where it is (on the stack)
	}
	b = append(b, `{"run":`...)
	b = appendString(b, d.Run)
	if d.ID != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, d.ID)
	}
	b = append(b, `,"decision":`...)
	b = appendString(b, d.Decision)
	for _, f := range [...]struct{ name, v string }{{`,"reason":`, d.Reason}, {`,"kind":`, d.Kind}, {`,"property":`, d.Property}} {
		if f.v != "" {
			b = append(b, f.name...)
			b = appendString(b, f.v)
		}
	}
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(d.Step), 10)
	if len(d.Allowed) > 0 {
		b = append(b, `,"allowed":[`...)
		for i, a := range d.Allowed {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, a)
		}
		b = append(b, ']')
	}
	if d.Terminal {
		b = append(b, `,"terminal":true`...)
	}
	if d.Ended != "" {
		b = append(b, `,"ended":`...)
		b = appendString(b, d.Ended)
	}
	return append(b, "}\n"...)
}

// appendString appends s as a JSON string, as encoding/json writes it
// without HTML escapes.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return append(b, bytes.TrimSuffix(encodeJSON(s), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// encodeJSON returns x encoded by encoding/json, without HTML escapes,
// and a newline.
func encodeJSON(x any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		panic("wrapcheck internal error: guard: " + err.Error())
	}
	return b.Bytes()
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// decodeRequest parses one request with encoding/json, strictly:
// unknown members and duplicate keys of the envelope are errors. It reads
// the requests decodeFast declines, and is what the tests hold
// decodeFast to.
func decodeRequest(line []byte, req *Request) error {
	if len(line) > MaxRequestBytes {
		return fmt.Errorf("request longer than %d bytes", MaxRequestBytes)
	}
	if err := replay.CheckDuplicateKeys(line); err != nil {
		return fmt.Errorf("request: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		return fmt.Errorf("request: %s", clip(err.Error()))
	}
	if dec.More() {
		return errors.New("request: expected one JSON object, found more after it")
	}
	return nil
}

// decodeFast reads a request of the common shape in one pass (see
// package jsonscan): false for any other, which decodeRequest then reads
// with encoding/json. A request it reads is one encoding/json reads the
// same (TestDecodeFastAgrees).
//
// With dec, it reads the event too, in the same pass, as dec.DecodeFast
// reads it, into ev; an event DecodeFast declines is read as text only
// (ev.ok false), for the decision to decode. ev's Line is valid until
// dec's next use.
func decodeFast(line []byte, req *Request, dec *replay.Decoder, ev *fastEvent) bool {
	s := jsonscan.New(line)
	seen := 0
	ok := s.Object(func(k []byte) bool {
		var bit int
		ok := false
		switch string(k) {
		case "op":
			bit = 1
			req.Op, ok = fastString(&s)
		case "run":
			bit = 2
			req.Run, ok = fastString(&s)
		case "id":
			bit = 4
			req.ID, ok = fastString(&s)
		case "event":
			bit = 8
			if dec != nil && s.Peek() == '{' {
				at := s // to read the event again as text, if dec declines it
				start := s.Offset()
				l, read := dec.DecodeFast(&s)
				if read && s.Offset()-start <= replay.MaxLineBytes {
					req.Event, ok = line[start:s.Offset():s.Offset()], true
					*ev = fastEvent{l: l, ok: true}
					break
				}
				s = at
			}
			req.Event, ok = s.Skip()
		case "otlp":
			bit = 16
			req.OTLP, ok = s.Skip()
		case "traceparent":
			bit = 32
			req.TraceParent, ok = fastString(&s)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok || !s.End() {
		if ev != nil {
			*ev = fastEvent{}
		}
		return false
	}
	return true
}

// maxIdleDecoders is the most decoders a guard keeps between requests:
// as many as requests read at once, up to this.
const maxIdleDecoders = 16

// decoderPool keeps the decoders of requests between requests. Unlike a
// sync.Pool it does not drop them at a collection (a new decoder, its
// maps and buffers, would then be a request's cost) nor, under the race
// detector, at random.
type decoderPool struct {
	m    *spec.Model
	idle chan *replay.Decoder
}

// get returns an idle decoder, or a new one.
func (p *decoderPool) get() *replay.Decoder {
	select {
	case d := <-p.idle:
		return d
	default:
		return replay.NewDecoder(p.m)
	}
}

// put keeps d for a later request, unless maxIdleDecoders are kept.
func (p *decoderPool) put(d *replay.Decoder) {
	select {
	case p.idle <- d:
	default:
	}
}

// fastEvent is a request's event as decodeFast read it, with the
// request: ok false when it was not.
type fastEvent struct {
	l  replay.Line
	ok bool
}

// event returns req's event as the line numbered n of its run (first:
// its first, the only one that may omit the action): ev's, read with the
// request, or decoded now (also a step's without an action, for Decode
// to say why).
func (g *Guard) event(req Request, ev *fastEvent, n int, first bool) (replay.Line, error) {
	if ev != nil && ev.ok && (first || ev.l.Action() >= 0) {
		return ev.l.At(n), nil
	}
	return g.dec.Decode(req.Event, n, first)
}

// fastString reads a string or null (the empty string) for decodeFast.
// The string is the request line's own bytes (the scanner reads strings
// without escapes only), not a copy: valid while the line is, as the
// event's RawMessage is. What outlives the request copies it.
func fastString(s *jsonscan.Scanner) (string, bool) {
	if s.Lit("null") {
		return "", true
	}
	b, ok := s.Str()
	return unsafe.String(unsafe.SliceData(b), len(b)), ok
}

func checkIDs(req Request) error {
	if req.Run == "" {
		return errors.New("request: no run")
	}
	if len(req.Run) > MaxRunIDBytes || len(req.ID) > MaxRunIDBytes {
		return fmt.Errorf("request: a run or request id longer than %d bytes", MaxRunIDBytes)
	}
	if len(req.TraceParent) > MaxRunIDBytes {
		return fmt.Errorf("request: a traceparent longer than %d bytes", MaxRunIDBytes)
	}
	return nil
}

// quote returns s quoted and cut short: user text in a reason.
func quote(s string) string {
	return report.Escape(fmt.Sprintf("%q", clip(s)))
}

// clip cuts s to MaxRunIDBytes bytes.
func clip(s string) string {
	if len(s) <= MaxRunIDBytes {
		return s
	}
	return strings.ToValidUTF8(s[:MaxRunIDBytes], "") + "..."
}
