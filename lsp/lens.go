package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Commands the server executes (workspace/executeCommand).
const (
	commandCheck     = "wrapcheck.check"
	commandShowTrace = "wrapcheck.showTrace"
	// commandTrace returns the last counterexample of a check as the
	// playground's check answer (traceJSON), for the VS Code trace panel;
	// a third argument, a list of expressions, adds their watches (to
	// commandShowTrace's Markdown too: the text report with a line per
	// watch at every step, as check --watch prints it). An empty name
	// is the document's first counterexample, by name.
	commandTrace = "wrapcheck.trace"
)

// watchFile is the file name of the watches of wrapcheck.trace in their
// errors: watch i is line i+1 ("watch:2:5: undefined: y").
const watchFile = "watch"

// maxWatches bounds the watches of one wrapcheck.trace.
const maxWatches = 32

// watchTimeout bounds the check of a spec with its watches.
const watchTimeout = 10 * time.Second

// trace is the last counterexample of a check, as Markdown and as the
// trace panel's JSON, with the parsed document it was found in and its
// states, for the watches.
type trace struct {
	markdown string
	panel    traceJSON
	file     *syntax.File
	states   [][]int64
	res      *verdict.Result
}

// traceJSON is what wrapcheck.trace returns: the fields of the
// playground's check answer (web/engine.Response) that its trace table,
// lasso and sequence diagram read.
type traceJSON struct {
	// Name is the violated check.
	Name string `json:"name"`
	// Report is report.JSON's report of the check.
	Report json.RawMessage `json:"report"`
	// TraceText is the violation's trace as the text report prints it,
	// in wrap's notation, one entry per step (report.StepText).
	TraceText []stepText `json:"trace_text"`
	// Mermaid is report.Mermaid's sequence diagram of the violation.
	Mermaid string `json:"mermaid,omitempty"`
	// Operands are the values of the violated invariant's parts, as the
	// text report shows them.
	Operands []string `json:"operands,omitempty"`
	// Watches are the watches asked for, in order, each with its value at
	// every step or the error that refused it (web/engine.Watch's fields).
	Watches []watchJSON `json:"watches,omitempty"`
}

// watchJSON is one watch of traceJSON.
type watchJSON struct {
	Expr string `json:"expr"`
	// Error is why the expression was refused: Text is file:line:col: msg.
	Error *struct {
		Text string `json:"text"`
	} `json:"error,omitempty"`
	// Values holds its value at each step, in wrap's notation, or "error: "
	// and the message where the evaluation failed in that state.
	Values []string `json:"values,omitempty"`
}

// watched checks exprs as watches of the spec tr was found in
// (spec.CheckWatched): the model with those accepted, and the errors of
// those refused (nil for one accepted).
func (tr trace) watched(ctx context.Context, exprs []string) (*spec.Model, []*spec.Error, error) {
	if len(exprs) > maxWatches {
		return nil, nil, fmt.Errorf("%d watches: at most %d", len(exprs), maxWatches)
	}
	ctx, cancel := context.WithTimeout(ctx, watchTimeout)
	defer cancel()
	return spec.CheckWatched(tr.file, spec.Options{Context: ctx}, watchFile, exprs)
}

// watchedMarkdown is the counterexample's Markdown with the watches
// exprs: the text report with a line per watch at every step, under the
// errors of the watches refused.
func (tr trace) watchedMarkdown(ctx context.Context, exprs []string) (string, error) {
	m, refused, err := tr.watched(ctx, exprs)
	if err != nil {
		return "", err
	}
	var errs []string
	for _, e := range refused {
		if e != nil {
			errs = append(errs, e.Error())
		}
	}
	return traceMarkdown(m, tr.res, errs), nil
}

// watches evaluates exprs as watches (trace.watched) on the trace.
func (tr trace) watches(ctx context.Context, exprs []string) ([]watchJSON, error) {
	m, refused, err := tr.watched(ctx, exprs)
	if err != nil {
		return nil, err
	}
	texts, err := report.WatchTexts(m, nil, tr.states)
	if err != nil {
		return nil, err
	}
	out := make([]watchJSON, len(exprs))
	for i, expr := range exprs {
		out[i].Expr = expr
		if e := refused[i]; e != nil {
			out[i].Error = &struct {
				Text string `json:"text"`
			}{e.Error()}
			continue
		}
		out[i].Values, texts = texts[0], texts[1:]
	}
	return out, nil
}

// checkTimeout bounds a check started from a code lens.
const checkTimeout = 5 * time.Minute

type codeLens struct {
	Range   lspRange `json:"range"`
	Command *command `json:"command,omitempty"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

// codeLens puts a "check" lens on every invariant and property of a
// document that checks. Once a check of this version has run, its lens
// shows the result: "violated: NAME (N steps)", whose command shows the
// trace, or "holds: NAME (N states)", whose command checks again.
func (s *Server) codeLens(req *request) (any, *rpcError) {
	a, rerr := s.document(req)
	if rerr != nil {
		return nil, rerr
	}
	out := []codeLens{}
	if a.model == nil {
		return out, nil
	}
	s.mu.Lock()
	st := s.docs[a.doc.uri]
	results := map[string]string{}
	if st != nil && st.doc == a.doc {
		for name, title := range st.results {
			results[name] = title
		}
	}
	s.mu.Unlock()
	add := func(name string, pos spec.Position) {
		c := &command{Title: "check " + name, Command: commandCheck, Arguments: []any{a.doc.uri, name}}
		if title, ok := results[name]; ok {
			c.Title = title
			if strings.HasPrefix(title, "violated") {
				c.Command = commandShowTrace
			}
		}
		out = append(out, codeLens{Range: a.doc.nameRange(pos, name), Command: c})
	}
	for _, o := range a.ix.objs {
		if isCheck(o) {
			add(o.Name, o.Pos)
		}
	}
	return out, nil
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// executeCommand runs wrapcheck.check (in the background: the reply comes
// at once, the result as diagnostics, a message and the lens's title) or
// returns the last counterexample, as Markdown (wrapcheck.showTrace) or
// as the trace panel's JSON (wrapcheck.trace).
func (s *Server) executeCommand(req *request) (any, *rpcError) {
	var p executeCommandParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	var uri, name string
	if len(p.Arguments) > 0 {
		json.Unmarshal(p.Arguments[0], &uri)
	}
	if len(p.Arguments) > 1 {
		json.Unmarshal(p.Arguments[1], &name)
	}
	s.mu.Lock()
	st := s.docs[uri]
	s.mu.Unlock()
	if st == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "document not open: " + uri}
	}
	switch p.Command {
	case commandShowTrace, commandTrace:
		s.mu.Lock()
		if name == "" {
			for n := range st.traces {
				if name == "" || n < name {
					name = n
				}
			}
		}
		tr, ok := st.traces[name]
		s.mu.Unlock()
		if !ok {
			if name == "" {
				return nil, &rpcError{Code: codeRequestFailed, Message: "no counterexample in this document yet: run a check first"}
			}
			return nil, &rpcError{Code: codeRequestFailed, Message: "no counterexample of " + name + " yet: run check first"}
		}
		var exprs []string
		if len(p.Arguments) > 2 {
			if err := json.Unmarshal(p.Arguments[2], &exprs); err != nil {
				return nil, &rpcError{Code: codeInvalidParams, Message: "the watches: want a list of expressions: " + err.Error()}
			}
		}
		switch {
		case len(exprs) == 0 && p.Command == commandTrace:
			return tr.panel, nil
		case len(exprs) == 0:
			return tr.markdown, nil
		case p.Command == commandTrace:
			ws, err := tr.watches(s.ctx, exprs)
			if err != nil {
				return nil, &rpcError{Code: codeRequestFailed, Message: err.Error()}
			}
			panel := tr.panel
			panel.Watches = ws
			return panel, nil
		}
		md, err := tr.watchedMarkdown(s.ctx, exprs)
		if err != nil {
			return nil, &rpcError{Code: codeRequestFailed, Message: err.Error()}
		}
		return md, nil
	case commandCheck:
	default:
		return nil, &rpcError{Code: codeInvalidParams, Message: "unknown command " + p.Command}
	}
	a, _, rerr := s.lookup(req, uri)
	if rerr != nil {
		return nil, rerr
	}
	if a.model == nil {
		return nil, &rpcError{Code: codeRequestFailed, Message: "the spec has errors: fix them before checking"}
	}
	found := false
	for _, o := range a.ix.objs {
		found = found || isCheck(o) && o.Name == name
	}
	if !found {
		return nil, &rpcError{Code: codeInvalidParams, Message: "no invariant or property " + name}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil
	}
	s.wg.Add(1)
	s.nextToken++
	token := fmt.Sprintf("wrapcheck-check-%d", s.nextToken)
	ctx, cancel := context.WithTimeout(s.ctx, checkTimeout)
	s.cancels[token] = cancel
	if req.id != "" {
		// $/cancelRequest of the command's request ends the check too,
		// though the reply came at once: a client without $/progress
		// has no other way to stop it.
		s.cancels[requestKey(req.id)] = cancel
	}
	progress := s.workDoneProgress
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() {
			cancel()
			s.mu.Lock()
			delete(s.cancels, token)
			delete(s.cancels, requestKey(req.id))
			s.mu.Unlock()
		}()
		s.runCheck(ctx, st, a, name, token, progress)
	}()
	return nil, nil
}

// runCheck checks one invariant or property of a's model, reporting
// $/progress under token, and publishes the outcome.
func (s *Server) runCheck(ctx context.Context, st *docState, a *analysis, name, token string, progress bool) {
	if progress {
		s.request("window/workDoneProgress/create", map[string]any{"token": token})
		s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{
			"kind": "begin", "title": "wrapcheck: checking " + name, "cancellable": true}})
	}
	opts := verify.Options{Only: []string{name}}
	if progress {
		opts.Progress = func(p verdict.Progress) {
			s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{
				"kind": "report", "message": fmt.Sprintf("%d states, depth %d", p.States, p.Depth)}})
		}
	}
	res, err := verify.Run(ctx, a.model, opts)
	var msg, result string
	var typ int
	switch {
	case err != nil:
		msg, typ = "wrapcheck: "+err.Error(), 1
	case res.Verdict == verdict.Holds:
		msg, typ = fmt.Sprintf("%s holds (%d states, %d transitions)", name, res.Stats.States, res.Stats.Transitions), 3
		result = fmt.Sprintf("holds: %s (%d states)", name, res.Stats.States)
	case res.Verdict == verdict.Violated:
		// A violation is a result, not an error: a warning, which Neovim
		// prints as a message where an error stops with "Error detected".
		result = violatedTitle(name, res.Violation)
		msg, typ = result+": "+report.Headline(a.model, res.Violation), 2
	default:
		msg, typ = fmt.Sprintf("%s: the search stopped early (%s) after %d states with no violation found", name, res.Reason(), res.Stats.States), 2
	}
	if progress {
		s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end", "message": msg}})
	}
	s.mu.Lock()
	current := st.doc == a.doc
	refresh := s.lensRefresh
	if current {
		delete(st.checks, name)
		delete(st.traces, name)
		delete(st.results, name)
		if result != "" {
			st.results[name] = result
		}
		if err == nil && res.Verdict == verdict.Violated {
			st.checks[name] = violationDiagnostic(a, res)
			states := make([][]int64, len(res.Violation.Trace))
			for i, step := range res.Violation.Trace {
				states[i] = step.State
			}
			st.traces[name] = trace{markdown: traceMarkdown(a.model, res, nil), panel: tracePanel(a, name, res), file: a.file, states: states, res: res}
		}
	}
	s.mu.Unlock()
	s.notify("window/showMessage", map[string]any{"type": typ, "message": msg})
	if current {
		s.publish(st)
		if refresh {
			s.request("workspace/codeLens/refresh", nil)
		}
	}
}

// violatedTitle is the result of a check that found the violation v:
// "violated: NAME (N steps)", with ", a lasso" for a cycle.
func violatedTitle(name string, v *verdict.Violation) string {
	steps := len(v.Trace) - 1
	unit := "steps"
	if steps == 1 {
		unit = "step"
	}
	lasso := ""
	if v.LoopStart >= 0 {
		lasso = ", a lasso"
	}
	return fmt.Sprintf("violated: %s (%d %s%s)", name, steps, unit, lasso)
}

// stepText is one step of traceJSON.TraceText: the agent answers and the
// changed variables, as web/engine's trace_text has them.
type stepText struct {
	Asked   []string `json:"asked,omitempty"`
	Changed []string `json:"changed"`
}

// tracePanel is the trace panel's JSON of res, a violation of name.
func tracePanel(a *analysis, name string, res *verdict.Result) traceJSON {
	out := traceJSON{Name: name, TraceText: []stepText{}}
	for i := range res.Violation.Trace {
		asked, changed := report.StepText(a.model, res.Violation.Trace, i)
		if changed == nil {
			changed = []string{}
		}
		out.TraceText = append(out.TraceText, stepText{Asked: asked, Changed: changed})
	}
	var b bytes.Buffer
	if err := report.JSON(&b, a.model, res); err == nil {
		out.Report = json.RawMessage(b.Bytes())
	}
	var mm strings.Builder
	if err := report.Mermaid(&mm, a.model, res); err == nil {
		out.Mermaid = mm.String()
	}
	var text strings.Builder
	if err := (report.TextOptions{Explain: true}).Render(&text, a.model, res); err == nil {
		if _, rest, ok := strings.Cut(text.String(), "and its parts evaluate to:\n"); ok {
			for _, line := range strings.Split(rest, "\n") {
				if !strings.HasPrefix(line, "         ") {
					break
				}
				out.Operands = append(out.Operands, strings.TrimSpace(line))
			}
		}
	}
	return out
}

// violationDiagnostic is the counterexample of res as a diagnostic on the
// violated check, with one related location per step of the trace.
func violationDiagnostic(a *analysis, res *verdict.Result) diagnostic {
	m, v := a.model, res.Violation
	var text strings.Builder
	report.Text(&text, m, res)
	dg := diagnostic{Range: a.doc.tokenRange(v.Pos), Severity: severityError, Source: "wrapcheck check", Message: strings.TrimSpace(text.String())}
	for i, step := range v.Trace {
		label, pos := "initial state", v.Pos
		if step.Action >= 0 && step.Action < len(m.Actions) {
			label, pos = m.Actions[step.Action].Name, m.Actions[step.Action].Pos
		}
		if v.LoopStart == i {
			label += " (the cycle starts here)"
		}
		dg.RelatedInformation = append(dg.RelatedInformation, diagnosticRelatedInformation{
			Location: location{URI: a.doc.uri, Range: a.doc.tokenRange(pos)},
			Message:  fmt.Sprintf("step %d: %s", i, label),
		})
	}
	return dg
}

// traceMarkdown is the report of res as a Markdown document (with a line
// per watch of m at every step), after the lines of notes (a block of
// their own, as written).
func traceMarkdown(m *spec.Model, res *verdict.Result, notes []string) string {
	var text strings.Builder
	report.Text(&text, m, res)
	head := "# " + report.MarkdownText(report.Headline(m, res.Violation)) + "\n\n"
	if len(notes) > 0 {
		head += report.MarkdownFence("text", strings.Join(notes, "\n")+"\n") + "\n"
	}
	return head + report.MarkdownFence("text", text.String())
}

// cancelProgress ends the check running under a progress token.
func (s *Server) cancelProgress(req *request) (any, *rpcError) {
	var p struct {
		Token any `json:"token"`
	}
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	if cancel, ok := s.cancels[fmt.Sprint(p.Token)]; ok {
		cancel()
	}
	s.mu.Unlock()
	return nil, nil
}

// cancelRequest ends the request with the given id: one that waits for
// an analysis is answered RequestCancelled, and a check that a
// workspace/executeCommand request started stops (its outcome is
// reported as the search's, stopped early). An id that names nothing
// running is ignored, as the protocol asks.
func (s *Server) cancelRequest(req *request) (any, *rpcError) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	for _, cancel := range []context.CancelFunc{s.requests[string(p.ID)], s.cancels[requestKey(string(p.ID))]} {
		if cancel != nil {
			cancel()
		}
	}
	s.mu.Unlock()
	return nil, nil
}

// requestKey is the key in Server.cancels of the check started by the
// request whose id has the JSON id; a progress token, a JSON string or
// number, never has its form.
func requestKey(id string) string { return "request " + id }

// request sends a request to the client; its response is ignored.
func (s *Server) request(method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.nextToken++
	id := fmt.Sprintf(`"wrapcheck-request-%d"`, s.nextToken)
	s.mu.Unlock()
	s.out.write(&message{ID: json.RawMessage(id), Method: method, Params: b})
}
