package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a [Server]. Its zero value is the default.
type Options struct {
	// Debounce is how long the server waits after a change before it
	// analyses the document and publishes diagnostics, so that a burst
	// of keystrokes costs one analysis. Zero means 150ms.
	Debounce time.Duration
	// Version is reported to the client in serverInfo ("" is "devel").
	Version string
	// AnalysisTimeout bounds the analysis (parse, check, vet) of one
	// version of a document: past it the document gets a diagnostic that
	// says so, and the analysis is told to stop. Zero means 5s.
	AnalysisTimeout time.Duration
	// AnalysisMemory bounds, in bytes, how much the Go heap may grow
	// during the analysis of one version of a document, with the same
	// outcome. Zero means 512 MiB.
	AnalysisMemory int64
}

// ErrExitWithoutShutdown is returned by [Server.Run] when the client sent
// `exit` without `shutdown` first; the protocol asks the server to exit
// with status 1 then.
var ErrExitWithoutShutdown = errors.New("lsp: exit without shutdown")

// Server is a language server for .wrap files speaking LSP 3.17 over a
// byte stream (stdio). Create one with [NewServer] and call [Server.Run]
// once. Its methods are safe for concurrent use.
type Server struct {
	opts Options
	out  *writer

	mu          sync.Mutex
	docs        map[string]*docState
	initialized bool
	shutdown    bool
	closed      bool // Run has returned: no more analyses start
	// workDoneProgress is whether the client accepts $/progress.
	workDoneProgress bool
	// lensRefresh is whether the client accepts workspace/codeLens/refresh.
	lensRefresh bool
	nextToken   int
	// cancels are the running checks, by progress token and by
	// requestKey of the workspace/executeCommand that started them.
	cancels map[string]context.CancelFunc
	// requests are the requests being answered, by the JSON of their
	// id: $/cancelRequest ends them.
	requests map[string]context.CancelFunc
	wg       sync.WaitGroup // publications and checks under way
	reqs     sync.WaitGroup // requests being answered
	ctx      context.Context
	// analyze is the analysis of a version of a document: [analyze],
	// another function in tests of the budgets.
	analyze func(ctx context.Context, d *document, parsed func(*analysis)) *analysis
}

// docState is one open document and its latest analysis.
type docState struct {
	doc   *document // guarded by Server.mu
	timer *time.Timer
	// checks and traces hold the counterexamples found by code lens
	// checks of the current version, by check name, and results the
	// outcome of every such check (the lens's title); guarded by Server.mu.
	checks  map[string]diagnostic
	traces  map[string]trace
	results map[string]string

	anMu sync.Mutex
	job  *job // the analysis of the latest version asked for, guarded by anMu
	// lastGood is the latest analysis that parsed.
	lastGood atomic.Pointer[analysis]
}

// request is one message being handled: its params and, for a request,
// the version of each open document when it arrived. A request is
// answered in a goroutine of its own, about those versions, even when
// newer edits arrive while it waits for an analysis.
type request struct {
	params json.RawMessage
	docs   map[string]*document // nil: the current versions (a notification)
	// id is the JSON of a request's id, and ctx ends when the client
	// cancels it ($/cancelRequest); nil for a notification.
	id  string
	ctx context.Context
}

// NewServer returns a server configured by opts.
func NewServer(opts Options) *Server {
	if opts.Debounce == 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.AnalysisTimeout == 0 {
		opts.AnalysisTimeout = 5 * time.Second
	}
	if opts.AnalysisMemory == 0 {
		opts.AnalysisMemory = 512 << 20
	}
	return &Server{opts: opts, docs: map[string]*docState{}, cancels: map[string]context.CancelFunc{}, requests: map[string]context.CancelFunc{}, analyze: analyze}
}

// Run serves requests read from in and writes responses and
// notifications to out until the client sends `exit`, in ends, or ctx is
// cancelled. It returns nil after shutdown and exit (or the end of
// input), [ErrExitWithoutShutdown] after an exit without shutdown, and an
// error when the input is not a stream of LSP messages.
func (s *Server) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	s.out = &writer{w: out}
	defer func() {
		cancel() // ends the analyses and checks under way
		s.mu.Lock()
		s.closed = true
		for _, st := range s.docs {
			if st.timer != nil {
				st.timer.Stop()
			}
		}
		s.mu.Unlock()
		s.reqs.Wait()
		s.wg.Wait()
	}()
	type read struct {
		body []byte
		err  error
	}
	msgs := make(chan read)
	r := newReader(in)
	go func() {
		for {
			body, err := r.read()
			select {
			case msgs <- read{body, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && err != errTooLarge {
				return
			}
		}
	}()
	for {
		var m read
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m = <-msgs:
		}
		if m.err == errTooLarge {
			s.reply(nil, nil, &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("message over %d bytes", maxMessage)})
			continue
		}
		if m.err == io.EOF {
			return nil
		}
		if m.err != nil {
			return m.err
		}
		var msg message
		if err := json.Unmarshal(m.body, &msg); err != nil {
			s.reply(nil, nil, &rpcError{Code: codeParseError, Message: "invalid JSON: " + err.Error()})
			continue
		}
		if msg.Method == "exit" {
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if !down {
				return ErrExitWithoutShutdown
			}
			return nil
		}
		if msg.Method == "" {
			continue // a response to a request of ours
		}
		if msg.isRequest() && msg.Method != "initialize" && msg.Method != "shutdown" {
			// Answered in the background, so that no request (one that
			// waits for the analysis of a hostile document, say) holds
			// up the others; notifications stay in order here.
			rctx, cancel := context.WithCancel(ctx)
			req := &request{params: msg.Params, docs: s.snapshot(), id: string(msg.ID), ctx: rctx}
			s.mu.Lock()
			s.requests[req.id] = cancel
			s.mu.Unlock()
			s.reqs.Add(1)
			go func() {
				defer s.reqs.Done()
				result, rerr := s.dispatch(&msg, req)
				s.mu.Lock()
				delete(s.requests, req.id)
				s.mu.Unlock()
				cancel()
				s.reply(msg.ID, result, rerr)
			}()
			continue
		}
		if msg.Method == "shutdown" {
			s.reqs.Wait()
		}
		result, rerr := s.dispatch(&msg, &request{params: msg.Params})
		if msg.isRequest() {
			s.reply(msg.ID, result, rerr)
		}
	}
}

// snapshot returns the current version of each open document.
func (s *Server) snapshot() map[string]*document {
	s.mu.Lock()
	defer s.mu.Unlock()
	docs := make(map[string]*document, len(s.docs))
	for uri, st := range s.docs {
		docs[uri] = st.doc
	}
	return docs
}

// reply sends the response to the request with the given id.
func (s *Server) reply(id json.RawMessage, result any, rerr *rpcError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	m := &message{ID: id}
	if rerr != nil {
		m.Error = rerr
	} else {
		b, err := json.Marshal(result)
		if err != nil {
			m.Error = &rpcError{Code: codeInternalError, Message: err.Error()}
		} else {
			m.Result = b
		}
	}
	s.out.write(m)
}

// notify sends a notification to the client.
func (s *Server) notify(method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		return
	}
	s.out.write(&message{Method: method, Params: b})
}

// dispatch handles one request or notification. A panic in a handler is
// reported as an internal error instead of ending the server.
func (s *Server) dispatch(msg *message, req *request) (result any, rerr *rpcError) {
	defer func() {
		if r := recover(); r != nil {
			result, rerr = nil, &rpcError{Code: codeInternalError, Message: fmt.Sprintf("wrapcheck internal error: %v\n%s", r, debug.Stack())}
		}
	}()
	s.mu.Lock()
	init, down := s.initialized, s.shutdown
	s.mu.Unlock()
	if msg.Method == "initialize" {
		return s.initialize(req)
	}
	if !init {
		if msg.isRequest() {
			return nil, &rpcError{Code: codeServerNotInit, Message: "server not initialized"}
		}
		return nil, nil
	}
	if down && msg.isRequest() {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "server is shutting down"}
	}
	h, ok := s.handlers()[msg.Method]
	if !ok {
		if msg.isRequest() {
			return nil, &rpcError{Code: codeMethodNotFound, Message: "method not supported: " + msg.Method}
		}
		return nil, nil
	}
	return h(req)
}

type handler func(req *request) (any, *rpcError)

func (s *Server) handlers() map[string]handler {
	return map[string]handler{
		"initialized":                      func(*request) (any, *rpcError) { return nil, nil },
		"shutdown":                         s.shutdownReq,
		"textDocument/didOpen":             s.didOpen,
		"textDocument/didChange":           s.didChange,
		"textDocument/didClose":            s.didClose,
		"textDocument/didSave":             func(*request) (any, *rpcError) { return nil, nil },
		"textDocument/hover":               s.hover,
		"textDocument/definition":          s.definition,
		"textDocument/references":          s.references,
		"textDocument/documentSymbol":      s.documentSymbol,
		"textDocument/formatting":          s.formatting,
		"textDocument/completion":          s.completion,
		"textDocument/codeAction":          s.codeAction,
		"textDocument/codeLens":            s.codeLens,
		"workspace/executeCommand":         s.executeCommand,
		"window/workDoneProgress/cancel":   s.cancelProgress,
		"textDocument/rename":              s.rename,
		"textDocument/prepareRename":       s.prepareRename,
		"textDocument/foldingRange":        s.foldingRange,
		"textDocument/signatureHelp":       s.signatureHelp,
		"textDocument/semanticTokens/full": s.semanticTokens,
		"workspace/symbol":                 s.workspaceSymbol,
		"$/cancelRequest":                  s.cancelRequest,
		"$/setTrace":                       func(*request) (any, *rpcError) { return nil, nil },
		"workspace/didChangeConfiguration": func(*request) (any, *rpcError) { return nil, nil },
	}
}

func decode(params json.RawMessage, v any) *rpcError {
	if len(params) == 0 {
		return &rpcError{Code: codeInvalidParams, Message: "missing params"}
	}
	if err := json.Unmarshal(params, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return nil
}

func (s *Server) initialize(req *request) (any, *rpcError) {
	var p initializeParams
	if len(req.params) > 0 {
		if rerr := decode(req.params, &p); rerr != nil {
			return nil, rerr
		}
	}
	s.mu.Lock()
	s.initialized = true
	s.workDoneProgress = p.Capabilities.Window.WorkDoneProgress
	s.lensRefresh = p.Capabilities.Workspace.CodeLens.RefreshSupport
	s.mu.Unlock()
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": "utf-16",
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
				"save":      false,
			},
			"hoverProvider":              true,
			"definitionProvider":         true,
			"referencesProvider":         true,
			"documentSymbolProvider":     true,
			"documentFormattingProvider": true,
			"completionProvider": map[string]any{
				"triggerCharacters": []string{"."},
			},
			"codeLensProvider":       map[string]any{},
			"executeCommandProvider": map[string]any{"commands": []string{commandCheck, commandShowTrace, commandTrace}},
			"codeActionProvider": map[string]any{
				"codeActionKinds": []string{"quickfix"},
			},
			"renameProvider":          map[string]any{"prepareProvider": true},
			"foldingRangeProvider":    true,
			"workspaceSymbolProvider": true,
			"signatureHelpProvider": map[string]any{
				"triggerCharacters": []string{"(", ","},
			},
			"semanticTokensProvider": map[string]any{
				"legend": map[string]any{"tokenTypes": semanticTokenTypes, "tokenModifiers": semanticTokenModifiers},
				"full":   true,
			},
		},
		"serverInfo": map[string]any{"name": "wrapcheck", "version": s.opts.Version},
	}, nil
}

func (s *Server) shutdownReq(*request) (any, *rpcError) {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return nil, nil
}

func (s *Server) didOpen(req *request) (any, *rpcError) {
	var p didOpenParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	d := newDocument(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.mu.Lock()
	st := s.docs[d.uri]
	if st == nil {
		st = &docState{checks: map[string]diagnostic{}, traces: map[string]trace{}, results: map[string]string{}}
		s.docs[d.uri] = st
	}
	st.doc = d
	s.mu.Unlock()
	s.supersede(st)
	s.schedule(st, 0)
	return nil, nil
}

func (s *Server) didChange(req *request) (any, *rpcError) {
	var p didChangeParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	st := s.docs[p.TextDocument.URI]
	if st == nil {
		s.mu.Unlock()
		return nil, nil
	}
	d := st.doc
	for _, c := range p.ContentChanges {
		d = d.apply(p.TextDocument.Version, c)
	}
	if len(p.ContentChanges) == 0 {
		d = newDocument(d.uri, p.TextDocument.Version, d.text)
	}
	st.doc = d
	clear(st.checks)
	clear(st.traces)
	clear(st.results)
	s.mu.Unlock()
	s.supersede(st)
	s.schedule(st, s.opts.Debounce)
	return nil, nil
}

func (s *Server) didClose(req *request) (any, *rpcError) {
	var p didCloseParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	st := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	if st != nil && st.timer != nil {
		st.timer.Stop()
	}
	s.mu.Unlock()
	if st != nil {
		s.supersede(st)
	}
	s.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []diagnostic{}})
	return nil, nil
}

// schedule (re)starts the debounce timer of st: after delay, the current
// version is analysed and its diagnostics published.
func (s *Server) schedule(st *docState, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.timer != nil {
		st.timer.Stop()
	}
	st.timer = time.AfterFunc(delay, func() {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		s.wg.Add(1)
		s.mu.Unlock()
		defer s.wg.Done()
		s.publish(st)
	})
}

// publish analyses the current version of st and sends its diagnostics,
// unless a newer version arrived meanwhile.
func (s *Server) publish(st *docState) {
	s.mu.Lock()
	d := st.doc
	s.mu.Unlock()
	a, rerr := s.analysisOf(nil, st, d)
	if rerr != nil {
		return // superseded
	}
	s.mu.Lock()
	current := st.doc == a.doc && s.docs[a.doc.uri] == st
	diags := append([]diagnostic{}, a.diags...)
	var names []string
	for name := range st.checks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		diags = append(diags, st.checks[name])
	}
	s.mu.Unlock()
	if !current {
		return
	}
	v := a.doc.version
	s.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: a.doc.uri, Version: &v, Diagnostics: diags})
}

// errContentModified answers a request about a version of a document
// that a newer one replaced before its analysis ended.
var errContentModified = &rpcError{Code: codeContentModified, Message: "the document changed"}

// errRequestCancelled answers a request that the client cancelled
// ($/cancelRequest) while it waited for an analysis.
var errRequestCancelled = &rpcError{Code: codeRequestCancelled, Message: "request cancelled"}

// analysisOf returns the analysis of version d of st, computing it at
// most once per version, within the budget of [Options.AnalysisTimeout]
// and [Options.AnalysisMemory]. It waits for no longer than that budget,
// whatever the analysis does. A version that is no longer the current one
// and whose analysis was not kept gets errContentModified.
func (s *Server) analysisOf(ctx context.Context, st *docState, d *document) (*analysis, *rpcError) {
	j := s.jobFor(st, d)
	if j == nil {
		return nil, errContentModified
	}
	var cancelled <-chan struct{}
	if ctx != nil {
		cancelled = ctx.Done()
	}
	select {
	case <-j.done:
	case <-cancelled:
		return nil, errRequestCancelled
	}
	if j.an.superseded {
		return nil, errContentModified
	}
	return j.an, nil
}

// jobFor returns the analysis of version d of st, started if need be,
// or nil when d is no longer the current version and has no analysis.
func (s *Server) jobFor(st *docState, d *document) *job {
	st.anMu.Lock()
	defer st.anMu.Unlock()
	if st.job != nil && st.job.doc == d {
		return st.job
	}
	s.mu.Lock()
	current := st.doc == d && !s.closed
	s.mu.Unlock()
	if !current {
		return nil
	}
	if st.job != nil {
		st.job.stop()
	}
	st.job = s.start(st, d)
	return st.job
}

// supersede stops the analysis of st unless it is of the current version:
// a newer edit (or the closing of the document) ends the older analysis.
func (s *Server) supersede(st *docState) {
	s.mu.Lock()
	d := st.doc
	open := s.docs[d.uri] == st
	s.mu.Unlock()
	st.anMu.Lock()
	defer st.anMu.Unlock()
	if st.job != nil && (st.job.doc != d || !open) {
		st.job.stop()
		st.job = nil
	}
}

// ready returns the analysis of st at hand without waiting: the current
// version's when it is done, else the latest one that parsed (nil when
// there is none).
func (s *Server) ready(st *docState) *analysis {
	st.anMu.Lock()
	j := st.job
	st.anMu.Unlock()
	if j != nil {
		select {
		case <-j.done:
			if !j.an.superseded {
				return j.an
			}
		default:
		}
	}
	return st.lastGood.Load()
}

// document decodes the params of a request that names only a document
// and returns the document's analysis.
func (s *Server) document(req *request) (*analysis, *rpcError) {
	var p documentParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	a, _, rerr := s.lookup(req, p.TextDocument.URI)
	return a, rerr
}

// lookup returns the analysis of the open document uri, in the version
// req is about, and the latest one that parsed (for completion while a
// line is half typed).
func (s *Server) lookup(req *request, uri string) (cur, good *analysis, rerr *rpcError) {
	s.mu.Lock()
	st := s.docs[uri]
	var d *document
	if st != nil {
		d = st.doc
	}
	if req.docs != nil {
		d = req.docs[uri]
	}
	s.mu.Unlock()
	if st == nil || d == nil {
		return nil, nil, &rpcError{Code: codeInvalidParams, Message: "document not open: " + uri}
	}
	if cur, rerr = s.analysisOf(req.ctx, st, d); rerr != nil {
		return nil, nil, rerr
	}
	return cur, st.lastGood.Load(), nil
}

// uriPath returns the file path of a file: URI, for positions in
// messages; other URIs are returned as they are.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return u.Path
}
