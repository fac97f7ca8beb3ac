package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Commands the server executes (workspace/executeCommand).
const (
	commandCheck     = "wrapcheck.check"
	commandShowTrace = "wrapcheck.showTrace"
)

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
// document that checks.
func (s *Server) codeLens(req *request) (any, *rpcError) {
	a, rerr := s.document(req)
	if rerr != nil {
		return nil, rerr
	}
	out := []codeLens{}
	if a.model == nil {
		return out, nil
	}
	add := func(name string, pos spec.Position) {
		out = append(out, codeLens{Range: a.doc.nameRange(pos, name),
			Command: &command{Title: "check " + name, Command: commandCheck, Arguments: []any{a.doc.uri, name}}})
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
// at once, the result as diagnostics and a message) or returns the
// Markdown of the last counterexample (wrapcheck.showTrace).
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
	case commandShowTrace:
		s.mu.Lock()
		md, ok := st.traces[name]
		s.mu.Unlock()
		if !ok {
			return nil, &rpcError{Code: codeRequestFailed, Message: "no counterexample of " + name + " yet: run check first"}
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
	progress := s.workDoneProgress
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() {
			cancel()
			s.mu.Lock()
			delete(s.cancels, token)
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
	var msg string
	var typ int
	switch {
	case err != nil:
		msg, typ = "wrapcheck: "+err.Error(), 1
	case res.Verdict == verdict.Holds:
		msg, typ = fmt.Sprintf("%s holds (%d states, %d transitions)", name, res.Stats.States, res.Stats.Transitions), 3
	case res.Verdict == verdict.Violated:
		msg, typ = report.Headline(a.model, res.Violation), 1
	default:
		msg, typ = fmt.Sprintf("%s: the search stopped early (%s) after %d states with no violation found", name, res.Reason(), res.Stats.States), 2
	}
	if progress {
		s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end", "message": msg}})
	}
	s.mu.Lock()
	current := st.doc == a.doc
	if current {
		delete(st.checks, name)
		delete(st.traces, name)
		if err == nil && res.Verdict == verdict.Violated {
			st.checks[name] = violationDiagnostic(a, res)
			st.traces[name] = traceMarkdown(a, res)
		}
	}
	s.mu.Unlock()
	s.notify("window/showMessage", map[string]any{"type": typ, "message": msg})
	if current {
		s.publish(st)
	}
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

// traceMarkdown is the report of res as a Markdown document.
func traceMarkdown(a *analysis, res *verdict.Result) string {
	var text strings.Builder
	report.Text(&text, a.model, res)
	return "# " + report.MarkdownText(report.Headline(a.model, res.Violation)) + "\n\n" + report.MarkdownFence("text", text.String())
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
