package replay

import (
	"fmt"
	"io"
	"slices"

	"github.com/wrapcheck/wrapcheck/spec"
)

// The limits of [StreamOTLP].
const (
	// MaxPendingSpans is the most spans held for traces whose root span
	// has not arrived yet.
	MaxPendingSpans = 200000
	// MaxOpenRuns is the most runs followed at once (runs neither
	// diverged nor reached a violation yet, judged at the end).
	MaxOpenRuns = 10000
)

// streamRun is a run of a recording being replayed as its traces arrive.
type streamRun struct {
	key      string
	rs       *runState
	fed      int    // steps fed
	last     uint64 // the time of the last step fed
	span     SpanRef
	unmapped int
	first    SpanRef // the first unmapped span
	reported bool
}

// StreamOTLP replays the runs of an OTLP JSON recording read from r
// (named name in errors) through the mapping, as the recording arrives,
// in memory bounded by the limits above: the spans of a trace are held
// until its root span (one without parent) has arrived, and the trace is
// then judged with the request that brought the root: its steps, ordered
// as [ReadOTLP] orders them, are fed to the runs they belong to. A run
// that diverges or reaches a violation is reported at once (report is
// called, and its later steps are ignored); at the end of the input the
// traces still held are judged together, then every other run is
// reported, in the order of its first step. A step of a run earlier than
// a step of it already judged (a trace whose spans came after a later
// trace's root) is an error: the run can no longer be judged in order.
// It returns the number of runs.
func StreamOTLP(m *spec.Model, name string, r io.Reader, mp *Mapping, report func(*Report) error) (int, error) {
	rp, err := compileReplayer(m)
	if err != nil {
		return 0, err
	}
	s := &otlpStream{m: m, name: name, mp: mp, rp: rp, report: report,
		pending: map[string][]*span{}, runs: map[string]*streamRun{}}
	err = eachRequest(name, r, func() int { return s.held }, s.request)
	if err != nil {
		return len(s.orderOf), err
	}
	var rest []*span
	for _, sps := range s.pending {
		rest = append(rest, sps...)
	}
	s.pending = nil
	if err := s.judge(rest); err != nil {
		return len(s.orderOf), err
	}
	for _, run := range s.orderOf {
		if err := s.finish(run); err != nil {
			return len(s.orderOf), err
		}
	}
	return len(s.orderOf), nil
}

type otlpStream struct {
	m      *spec.Model
	name   string
	mp     *Mapping
	rp     *replayer
	report func(*Report) error

	pending map[string][]*span // trace id -> its spans so far
	held    int                // spans in pending
	order   int                // spans read
	runs    map[string]*streamRun
	open    int
	orderOf []*streamRun
}

// request takes the spans of one request: held with their traces, and
// each trace whose root came is judged.
func (s *otlpStream) request(spans []*span) error {
	var done []string
	for _, sp := range spans {
		sp.order = s.order
		s.order++
		s.pending[sp.traceID] = append(s.pending[sp.traceID], sp)
		s.held++
		if sp.parent == "" {
			done = append(done, sp.traceID)
		}
	}
	if s.held > MaxPendingSpans {
		return fmt.Errorf("%s:%d: more than %d spans of traces whose root span has not arrived: the stream cannot be judged in bounded memory", s.name, spans[len(spans)-1].line, MaxPendingSpans)
	}
	var batch []*span
	for _, id := range done {
		if sps, ok := s.pending[id]; ok {
			batch = append(batch, sps...)
			s.held -= len(sps)
			delete(s.pending, id)
		}
	}
	return s.judge(batch)
}

// judge feeds the steps of complete traces to their runs.
func (s *otlpStream) judge(spans []*span) error {
	if len(spans) == 0 {
		return nil
	}
	slices.SortStableFunc(spans, func(a, b *span) int { return a.order - b.order })
	steps, unmapped, keys := s.mp.collect(spans)
	runOf := func(key string) (*streamRun, error) {
		if run, ok := s.runs[key]; ok {
			return run, nil
		}
		if s.open == MaxOpenRuns {
			return nil, fmt.Errorf("%s: more than %d runs open at once: the stream cannot be judged in bounded memory", s.name, MaxOpenRuns)
		}
		run := &streamRun{key: key, rs: s.rp.start()}
		s.runs[key] = run
		s.orderOf = append(s.orderOf, run)
		s.open++
		return run, nil
	}
	for _, st := range steps {
		if _, err := runOf(keys[st.sp]); err != nil {
			return err
		}
	}
	for _, sp := range unmapped {
		if run, ok := s.runs[keys[sp]]; ok && !run.reported {
			if run.unmapped == 0 {
				run.first = spanRef(sp)
			}
			run.unmapped++
		}
	}
	for _, st := range steps {
		run := s.runs[keys[st.sp]]
		if run.reported {
			continue
		}
		l, ref, err := s.mp.line(s.m, s.name, st)
		if err != nil {
			return err
		}
		if run.fed > 0 && st.time < run.last {
			return fmt.Errorf("%s:%d: %s: run %s: this step starts before a step of the run judged already (a trace's spans came after a later trace was complete): the stream cannot be judged in order", s.name, st.sp.line, ref, run.key)
		}
		run.fed++
		run.last = st.time
		run.span = ref
		l.line = run.fed
		run.rs.feed(l)
		if run.rs.done != nil {
			if err := s.finish(run); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish reports a run, once.
func (s *otlpStream) finish(run *streamRun) error {
	if run.reported {
		return nil
	}
	run.reported = true
	s.open--
	out := run.rs.end()
	rp := &Report{Run: s.name, Result: out, OTLP: true, Key: run.key, Unmapped: run.unmapped, FirstUnmapped: run.first}
	if out.Diverged != nil || out.Violation != nil && out.Line > 0 {
		rp.Span = run.span
	}
	run.rs = nil // its states and history are no longer needed
	return s.report(rp)
}
