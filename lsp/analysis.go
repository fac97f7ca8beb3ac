package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// maxAnalyzed is the largest document, in bytes, that the server parses
// and checks as it is typed. A larger one gets a single diagnostic that
// says so, and no language features: the front end takes seconds on such
// files, and a .wrap spec is rarely over a few kilobytes.
const maxAnalyzed = 2 << 20

// analysis is what the server knows about one version of a document.
type analysis struct {
	doc   *document
	file  *syntax.File // nil when the document does not parse
	model *spec.Model  // nil when it does not check
	ix    *index       // nil when file is nil
	diags []diagnostic
	// fixes maps a diagnostic's message to the replacement its "did you
	// mean" suggestion offers.
	fixes map[string]string
	// superseded is set on the outcome of an analysis that a newer
	// version of the document (or its closing) ended.
	superseded bool
}

// job is the analysis of one version of a document, run in a goroutine of
// its own under the budget of the server's options. Its outcome is set
// once, by the analysis or by whatever ends it first (the time or memory
// budget, a newer version), and done is closed then: a request never
// waits on the analysis itself, so an analysis that does not stop when
// told cannot hold up the server.
type job struct {
	doc    *document
	cancel context.CancelFunc // tells the analysis to stop
	done   chan struct{}
	once   sync.Once
	an     *analysis // the outcome, set before done is closed

	mu     sync.Mutex
	parsed *analysis // the document's syntax once it parsed; guarded by mu
}

// memoryEvery is how often the Go heap is sampled during an analysis.
const memoryEvery = 20 * time.Millisecond

// start starts the analysis of version d of st and its watch.
func (s *Server) start(st *docState, d *document) *job {
	base := s.ctx
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	j := &job{doc: d, cancel: cancel, done: make(chan struct{})}
	go func() {
		a := s.analyze(ctx, d, j.setParsed)
		if ctx.Err() != nil {
			// Ended by a newer version, or by a budget whose outcome is
			// already set: what it reports is the interruption.
			a = &analysis{doc: d, superseded: true}
		}
		j.finish(st, a)
	}()
	go j.watch(ctx, st, s.opts.AnalysisTimeout, s.opts.AnalysisMemory)
	return j
}

// watch ends j when its analysis passes the time limit or grows the heap
// by more than mem bytes, or when it is cancelled.
func (j *job) watch(ctx context.Context, st *docState, limit time.Duration, mem int64) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	tick := time.NewTicker(memoryEvery)
	defer tick.Stop()
	start := verdict.HeapBytes()
	for {
		select {
		case <-j.done:
			return
		case <-ctx.Done():
			j.finish(st, &analysis{doc: j.doc, superseded: true})
			return
		case <-timer.C:
			j.finish(st, j.stopped(fmt.Sprintf("analysis stopped after %v, the time budget for a document", limit)))
			return
		case <-tick.C:
			if h := verdict.HeapBytes(); h > start && int64(h-start) > mem {
				j.finish(st, j.stopped(fmt.Sprintf("analysis stopped: it grew the memory by more than %d MiB, the budget for a document", mem>>20)))
				return
			}
		}
	}
}

// stop ends j as superseded by a newer version.
func (j *job) stop() { j.cancel() }

// finish sets the outcome of j, unless it has one, and tells its
// analysis to stop.
func (j *job) finish(st *docState, a *analysis) {
	j.once.Do(func() {
		j.an = a
		if a.file != nil && !a.superseded {
			for {
				old := st.lastGood.Load()
				if old != nil && old.doc.version > a.doc.version || st.lastGood.CompareAndSwap(old, a) {
					break
				}
			}
		}
		close(j.done)
	})
	j.cancel()
}

// setParsed records the syntax of j's document once it parsed.
func (j *job) setParsed(a *analysis) {
	j.mu.Lock()
	j.parsed = a
	j.mu.Unlock()
}

// stopped is the outcome of j when a budget ended it: the document's
// syntax if it parsed (names, outline and formatting keep working) and a
// warning that says why there is no more.
func (j *job) stopped(why string) *analysis {
	d := j.doc
	a := &analysis{doc: d, fixes: map[string]string{}}
	j.mu.Lock()
	if j.parsed != nil {
		a.file, a.ix = j.parsed.file, j.parsed.ix
	}
	j.mu.Unlock()
	a.diags = []diagnostic{{
		Range:    lspRange{End: d.lspPos(min(len(d.line(0)), len(d.text)))},
		Severity: severityWarning, Source: "wrapcheck",
		Message: why + "; run wrapcheck check --timeout on it",
	}}
	return a
}

// analyze parses, checks and vets d, until ctx ends. Once d parsed, it
// calls parsed (when not nil) with an analysis that has its syntax. It
// never panics: the front end reports every problem as an error, and an
// internal failure becomes a diagnostic too.
func analyze(ctx context.Context, d *document, parsed func(*analysis)) (a *analysis) {
	a = &analysis{doc: d, fixes: map[string]string{}}
	defer func() {
		if r := recover(); r != nil {
			a.file, a.model, a.ix = nil, nil, nil
			a.diags = []diagnostic{{
				Range: lspRange{}, Severity: severityError, Source: "wrapcheck",
				Message: fmt.Sprintf("wrapcheck internal error: %v", r),
			}}
		}
	}()
	if len(d.text) > maxAnalyzed {
		a.diags = []diagnostic{{
			Range:    lspRange{End: d.lspPos(min(len(d.line(0)), len(d.text)))},
			Severity: severityWarning, Source: "wrapcheck",
			Message: fmt.Sprintf("file too large to analyse while editing (%d bytes, the limit is %d); run wrapcheck check on it",
				len(d.text), maxAnalyzed),
		}}
		return a
	}
	name := uriPath(d.uri)
	f, err := syntax.Parse(name, []byte(d.text))
	if err != nil {
		a.addError(err)
		return a
	}
	a.file = f
	if parsed != nil {
		// Names are resolved by the check: until it ends, the syntax
		// features (outline, formatting) work and names do not.
		parsed(&analysis{doc: d, file: f, ix: newIndex(&spec.Info{})})
	}
	ix, m, err := check(ctx, f)
	a.ix = ix
	if err != nil {
		a.addError(err)
		return a
	}
	a.model = m
	for _, w := range spec.Vet(f, m) {
		a.diags = append(a.diags, diagnostic{
			Range: d.tokenRange(w.Pos), Severity: severityWarning, Source: "wrapcheck vet", Message: w.Msg,
		})
	}
	return a
}

// addError turns a front-end error into diagnostics.
func (a *analysis) addError(err error) {
	var list syntax.ErrorList
	if !errors.As(err, &list) {
		var one *syntax.Error
		if errors.As(err, &one) {
			list = syntax.ErrorList{one}
		}
	}
	if len(list) == 0 {
		a.diags = append(a.diags, diagnostic{Severity: severityError, Source: "wrapcheck", Message: err.Error()})
		return
	}
	for i, e := range list {
		if i == syntax.MaxErrors {
			break
		}
		dg := diagnostic{Range: a.doc.tokenRange(e.Pos), Severity: severityError, Source: "wrapcheck", Message: e.Msg}
		for _, n := range e.Secondary {
			dg.RelatedInformation = append(dg.RelatedInformation, diagnosticRelatedInformation{
				Location: location{URI: a.doc.uri, Range: a.doc.tokenRange(n.Pos)},
				Message:  n.Msg,
			})
		}
		if fix := suggestion(e.Msg); fix != "" {
			a.fixes[e.Msg] = fix
		}
		a.diags = append(a.diags, dg)
	}
}

// suggestion returns the name in a "(did you mean X?)" hint, or "".
func suggestion(msg string) string {
	_, rest, ok := strings.Cut(msg, "(did you mean ")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "?)")
	if !ok || name == "" {
		return ""
	}
	for i := 0; i < len(name); i++ {
		if !isWordByte(name[i]) {
			return ""
		}
	}
	return name
}
