package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/docs"
	"github.com/wrapcheck/wrapcheck/examples"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Options configures [NewServer]. Its zero value is the default.
type Options struct {
	// Version is reported to the client ("" is "devel").
	Version string
	// DefaultTimeout bounds a check that names no timeout; zero means 60s.
	DefaultTimeout time.Duration
	// MaxTimeout caps the timeout a check may ask for; zero means 10m.
	MaxTimeout time.Duration
	// MemoryBudget bounds, in bytes, the Go heap of a check's search
	// (verify.Options.MemoryBudget): past it the verdict is incomplete.
	// Zero means 1 GiB.
	MemoryBudget int64
}

// maxSpecBytes bounds a spec passed as text or read from a path.
const maxSpecBytes = 4 << 20

// NewServer returns an MCP server with the tools check, prob, vet, fmt, ltl and
// examples, and the documentation and examples as resources. Connect it
// to a transport with its Run or Connect method; see [Serve] for stdio.
func NewServer(opts Options) *sdk.Server {
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.DefaultTimeout == 0 {
		opts.DefaultTimeout = time.Minute
	}
	if opts.MaxTimeout == 0 {
		opts.MaxTimeout = 10 * time.Minute
	}
	if opts.MemoryBudget == 0 {
		opts.MemoryBudget = 1 << 30
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "wrapcheck", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "wrapcheck model-checks wrapper specifications (.wrap): the control logic around untrusted agents. " +
			"Read the resource wrapcheck://docs/agents.md first; check a spec with the check tool.",
	})
	t := &tools{opts: opts}
	sdk.AddTool(s, &sdk.Tool{Name: "check", Description: "Explore every reachable state of a .wrap spec (given as text or as a path) and report " +
		"whether every invariant, assertion and property holds, with the shortest counterexample trace. The result field is " +
		"the JSON of `wrapcheck check --format json`; verdict is holds, violated or incomplete " +
		"(a limit or the timeout stopped the search). The text content is a summary of a few lines; the report is the structured result alone."},
		bounded(t, "check", func(in CheckInput) float64 { return in.TimeoutSeconds }, t.check))
	sdk.AddTool(s, &sdk.Tool{Name: "prob", Description: "Compute the probability and expected-cost queries of a .wrap spec with answer rates " +
		"(`rate`, `probability`, `cost`, `expected`; resource wrapcheck://docs/language.md, \"Probabilities\"): each query's minimum and maximum " +
		"over the unrated choices, as exact fractions, and, for counts `k of n`, the range over their confidence intervals. The result field is " +
		"the JSON of `wrapcheck prob --format json`; verdict is holds, violated (a bound can be broken), unknown (a bound not decided) or incomplete."},
		bounded(t, "prob", func(in ProbInput) float64 { return in.TimeoutSeconds }, t.prob))
	sdk.AddTool(s, &sdk.Tool{Name: "vet", Description: "Report likely mistakes in a .wrap spec: unused declarations, agents never asked, " +
		"assumptions that can never hold, terminal conditions that never hold. Spec errors come back as a tool error."},
		bounded(t, "vet", func(in VetInput) float64 { return in.TimeoutSeconds }, t.vet))
	sdk.AddTool(s, &sdk.Tool{Name: "explain", Description: "Check a .wrap spec as the check tool does and explain its counterexample: for a safety " +
		"violation, which steps are essential and because of which variables; for a liveness violation, the actions of the cycle " +
		"and which fairness (checked) would make the property hold, or that the agents' answers drive it."},
		bounded(t, "explain", func(in ExplainInput) float64 { return in.TimeoutSeconds }, t.explain))
	sdk.AddTool(s, &sdk.Tool{Name: "fmt", Description: "Print a .wrap spec in the canonical layout of `wrapcheck fmt`."},
		bounded(t, "fmt", func(in FmtInput) float64 { return in.TimeoutSeconds }, t.fmt))
	sdk.AddTool(s, &sdk.Tool{Name: "ltl", Description: "Translate an LTL formula over boolean names (e.g. 'always (req implies eventually ack)') " +
		"into the generalized Büchi automaton wrapcheck uses; negate gives the automaton of the negation, which the checker searches."},
		bounded(t, "ltl", func(in LTLInput) float64 { return in.TimeoutSeconds }, t.ltl))
	sdk.AddTool(s, &sdk.Tool{Name: "replay", Description: "Check a recorded run of a real wrapper (JSON lines, one step per line: " +
		"{\"action\": \"proc.act\", \"asked\": {...}, \"state\": {...}}) against its spec: conforms, diverges (the first line the spec " +
		"does not allow, with the actions it allows there) or violated (a violation the run reaches, as check reports it). " +
		"run may also be an OpenTelemetry recording in OTLP JSON (GenAI, MCP or OpenInference spans): mapping then says which spans " +
		"are which actions, and each run of the recording (split by gen_ai.conversation.id by default) is reported in runs, with the span " +
		"where it diverges."}, bounded(t, "replay", func(in ReplayInput) float64 { return in.TimeoutSeconds }, t.replay))
	sdk.AddTool(s, &sdk.Tool{Name: "examples", Description: "List the bundled example specs (no name), or return the text of one (name such as " +
		"\"approval/toctou\")."}, bounded(t, "examples", func(ExamplesInput) float64 { return 0 }, t.examples))
	addResources(s)
	return s
}

// Serve runs an MCP server on in and out (newline-delimited JSON-RPC, the
// MCP stdio transport) until the client disconnects or ctx ends.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	err := NewServer(opts).Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// tools holds the tool handlers.
type tools struct {
	opts Options
}

// Source names a spec: its text, or a path to read.
type Source struct {
	Spec string `json:"spec,omitempty" jsonschema:"the text of a .wrap spec; give spec or path"`
	Path string `json:"path,omitempty" jsonschema:"the path of a .wrap file, relative to the server's working directory; it must be a regular file under the roots the client declares (or, without roots, under the working directory); give spec or path"`
}

// specPath is the path src names, "" for none.
func (src Source) specPath() string { return src.Path }

// load returns the source text and the name positions are reported with.
// A path is read under the confinement of [readPath].
func (src Source) load(ctx context.Context, req *sdk.CallToolRequest) (string, []byte, error) {
	switch {
	case src.Spec != "" && src.Path != "":
		return "", nil, errors.New("give spec or path, not both")
	case src.Spec != "":
		if len(src.Spec) > maxSpecBytes {
			return "", nil, fmt.Errorf("spec is %d bytes, over the limit of %d", len(src.Spec), maxSpecBytes)
		}
		return "spec.wrap", []byte(src.Spec), nil
	case src.Path != "":
		b, err := readPath(ctx, req, src.Path)
		if err != nil {
			return "", nil, err
		}
		return src.Path, b, nil
	}
	return "", nil, errors.New("give spec (the text of a .wrap spec) or path")
}

// model loads, parses and checks the spec src names, with the constant
// overrides defines.
func (src Source) model(ctx context.Context, req *sdk.CallToolRequest, defines map[string]int64) (*syntax.File, *spec.Model, error) {
	name, text, err := src.load(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	f, err := syntax.Parse(name, text)
	if err != nil {
		return nil, nil, err
	}
	m, err := spec.Check(f, spec.Options{Defines: defines, Context: ctx})
	if err != nil {
		return nil, nil, err
	}
	return f, m, nil
}

// CheckInput is the input of the check tool.
type CheckInput struct {
	Source
	Defines        map[string]int64 `json:"defines,omitempty" jsonschema:"constant overrides, like -D NAME=VALUE"`
	Only           []string         `json:"only,omitempty" jsonschema:"check only these invariants and properties"`
	MaxStates      int64            `json:"max_states,omitempty" jsonschema:"stop after storing this many states (0: no limit)"`
	TimeoutSeconds float64          `json:"timeout_seconds,omitempty" jsonschema:"stop after this many seconds (default 60, at most 600); the verdict is then incomplete"`
	NoDeadlock     bool             `json:"no_deadlock,omitempty" jsonschema:"do not report states with no enabled action"`
	NoSymmetry     bool             `json:"no_symmetry,omitempty" jsonschema:"turn symmetry reduction off"`
	NoPOR          bool             `json:"no_por,omitempty" jsonschema:"turn partial-order reduction off"`
	Workers        int              `json:"workers,omitempty" jsonschema:"search goroutines (0: one per core)"`
}

// CheckOutput is the structured result of the check tool: the report once,
// as JSON. The tool's text content is only a summary of it ([checkSummary]).
type CheckOutput struct {
	Verdict  string         `json:"verdict" jsonschema:"holds, violated or incomplete"`
	Result   map[string]any `json:"result" jsonschema:"the JSON of wrapcheck check --format json: violation with trace, stats"`
	Warnings []string       `json:"warnings" jsonschema:"findings of wrapcheck vet, file:line:col: msg"`
}

func (t *tools) check(ctx context.Context, req *sdk.CallToolRequest, in CheckInput) (*sdk.CallToolResult, CheckOutput, error) {
	var out CheckOutput
	f, prog, res, err := t.search(ctx, req, in)
	if err != nil {
		return nil, out, err
	}
	m := prog.Model
	var js bytes.Buffer
	if err := report.JSON(&js, m, res); err != nil {
		return nil, out, err
	}
	if err := json.Unmarshal(js.Bytes(), &out.Result); err != nil {
		return nil, out, err
	}
	out.Verdict, _ = out.Result["verdict"].(string)
	out.Warnings = []string{}
	for _, w := range spec.Vet(f, m) {
		out.Warnings = append(out.Warnings, w.String())
	}
	return summarized(checkSummary(m, res, out.Warnings)), out, nil
}

// summarized is a tool's answer whose report is its structured result
// alone: the one text content is text, a few lines that say what the
// report holds and where, so that a client reads the report once (not as
// text, again as JSON text, and again as the structure).
func summarized(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// checkSummary is the text content of a check: the verdict, one line per
// violation (its headline and the length of its trace), the figures and
// vet's findings, and where the rest is. The report itself is the
// structured result alone, so that a client does not read it twice.
func checkSummary(m *spec.Model, res *verdict.Result, warnings []string) string {
	var b strings.Builder
	name := report.Escape(m.Name)
	switch res.Verdict {
	case verdict.Holds:
		fmt.Fprintf(&b, "%s: every check holds\n", name)
	case verdict.Unknown:
		fmt.Fprintf(&b, "%s: incomplete: %s; no violation found in the states explored\n", name, res.Reason())
	default:
		for _, v := range report.Violations(res) {
			fmt.Fprintf(&b, "%s (trace of %s", report.Headline(m, v), verdict.Plural(len(v.Trace)-1, "step"))
			if v.LoopStart >= 0 {
				fmt.Fprintf(&b, ", a cycle from step %d", v.LoopStart)
			}
			b.WriteString(")\n")
		}
	}
	s := res.Stats
	fmt.Fprintf(&b, "%d states, %d transitions, depth %d\n", s.States, s.Transitions, s.Depth)
	for _, w := range warnings {
		fmt.Fprintf(&b, "vet: %s\n", report.Escape(w))
	}
	b.WriteString("the report (traces, stats, notes) is the structured result: result is the JSON of wrapcheck check --format json\n")
	return b.String()
}

// search parses and checks the spec of in, compiles it once and runs
// every check it asks for, with progress notifications when the client gave a token and the
// time limit of in (or the server's default).
func (t *tools) search(ctx context.Context, req *sdk.CallToolRequest, in CheckInput) (*syntax.File, *machine.Program, *verdict.Result, error) {
	if in.MaxStates < 0 || in.Workers < 0 || in.TimeoutSeconds < 0 {
		return nil, nil, nil, errors.New("max_states, workers and timeout_seconds must not be negative")
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout(in))
	defer cancel()
	f, m, err := in.model(ctx, req, in.Defines)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := verify.Options{
		Workers: in.Workers, MaxStates: in.MaxStates, NoDeadlock: in.NoDeadlock, Only: in.Only,
		NoSymmetry: in.NoSymmetry, NoPOR: in.NoPOR, MemoryBudget: t.opts.MemoryBudget,
	}
	if err := opts.Validate(m); err != nil {
		return nil, nil, nil, err // "only Nope: no invariant or property of that name in M"
	}
	if opts.Program, err = machine.Compile(m); err != nil {
		return nil, nil, nil, err
	}
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		opts.Progress = func(p verdict.Progress) {
			msg := fmt.Sprintf("%d states, depth %d, %d in the level", p.States, p.Depth, p.Frontier)
			if p.Property != "" {
				msg = fmt.Sprintf("property %s: %d product nodes", p.Property, p.States)
			}
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(p.States), Message: msg})
		}
	}
	res, err := verify.Run(ctx, m, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	return f, opts.Program, res, nil
}

// timeout returns the time limit of a search for in: its own, capped at
// the server's maximum, or the server's default.
func (t *tools) timeout(in CheckInput) time.Duration { return t.limit(in.TimeoutSeconds) }

// limit is the time a tool call asking for secs seconds (0: no
// preference) may take: the default, or secs capped by the maximum.
func (t *tools) limit(secs float64) time.Duration {
	if secs > 0 {
		return min(time.Duration(secs*float64(time.Second)), t.opts.MaxTimeout)
	}
	return t.opts.DefaultTimeout
}

// VetOutput is the result of the vet tool.
type VetOutput struct {
	Warnings []string `json:"warnings" jsonschema:"file:line:col: msg, sorted by position"`
}

// VetInput is the input of the vet tool.
type VetInput struct {
	Source
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"stop after this many seconds (default 60, at most the server's maximum): an error then"`
}

func (t *tools) vet(ctx context.Context, req *sdk.CallToolRequest, in VetInput) (*sdk.CallToolResult, VetOutput, error) {
	out := VetOutput{Warnings: []string{}}
	if in.TimeoutSeconds < 0 {
		return nil, out, errors.New("timeout_seconds must not be negative")
	}
	name, src, err := in.load(ctx, req)
	if err != nil {
		return nil, out, err
	}
	f, err := syntax.Parse(name, src)
	if err != nil {
		return nil, out, err
	}
	m, err := spec.Check(f, spec.Options{Context: ctx})
	if err != nil {
		return nil, out, err
	}
	for _, w := range spec.Vet(f, m) {
		out.Warnings = append(out.Warnings, w.String())
	}
	text := report.Escape(name) + ": no findings"
	if n := len(out.Warnings); n > 0 {
		text = fmt.Sprintf("%s: %s, the first: %s\nwarnings (the structured result) lists them, file:line:col: msg", report.Escape(name), verdict.Plural(n, "finding"), report.Escape(out.Warnings[0]))
	}
	return summarized(text), out, nil
}

// FmtOutput is the result of the fmt tool.
type FmtOutput struct {
	Formatted string `json:"formatted" jsonschema:"the spec in the canonical layout"`
	Changed   bool   `json:"changed" jsonschema:"whether the layout differs from the input"`
}

// FmtInput is the input of the fmt tool.
type FmtInput struct {
	Source
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"stop after this many seconds (default 60, at most the server's maximum): an error then"`
}

func (t *tools) fmt(ctx context.Context, req *sdk.CallToolRequest, in FmtInput) (*sdk.CallToolResult, FmtOutput, error) {
	var out FmtOutput
	if in.TimeoutSeconds < 0 {
		return nil, out, errors.New("timeout_seconds must not be negative")
	}
	name, src, err := in.load(ctx, req)
	if err != nil {
		return nil, out, err
	}
	f, err := syntax.Parse(name, src)
	if err != nil {
		return nil, out, err
	}
	out.Formatted = string(syntax.Format(f))
	out.Changed = out.Formatted != string(src)
	text := report.Escape(name) + ": already in the canonical layout"
	if out.Changed {
		text = report.Escape(name) + ": the layout changed"
	}
	lines := strings.Count(out.Formatted, "\n")
	text += fmt.Sprintf("; formatted (the structured result) holds the spec in the canonical layout, %s", verdict.Plural(lines, "line"))
	return summarized(text), out, nil
}

// LTLInput is the input of the ltl tool.
type LTLInput struct {
	Formula string `json:"formula" jsonschema:"an LTL formula over boolean names, on one line"`
	Negate  bool   `json:"negate,omitempty" jsonschema:"translate the negation (what the checker searches for)"`
	// TimeoutSeconds bounds the translation, whose automaton can be
	// exponentially larger than the formula.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"stop after this many seconds (default 60, at most the server's maximum): an error then; the automaton can be exponentially larger than the formula"`
}

// LTLOutput is the result of the ltl tool.
type LTLOutput struct {
	Formula   string `json:"formula" jsonschema:"the formula as translated (in negation normal form)"`
	Automaton string `json:"automaton" jsonschema:"states, edges and acceptance sets, as wrapcheck ltl prints them"`
	DOT       string `json:"dot" jsonschema:"the automaton as a Graphviz DOT graph"`
}

func (t *tools) ltl(ctx context.Context, req *sdk.CallToolRequest, in LTLInput) (*sdk.CallToolResult, LTLOutput, error) {
	var out LTLOutput
	if in.TimeoutSeconds < 0 {
		return nil, out, errors.New("timeout_seconds must not be negative")
	}
	f, names, err := parseFormula(in.Formula)
	if err != nil {
		return nil, out, err
	}
	if in.Negate {
		f = ltl.Not(f)
	}
	aut, err := ltl.TranslateContext(ctx, f, 0)
	if err != nil {
		return nil, out, err
	}
	out.Formula = f.Format(names)
	out.Automaton = aut.Format(names)
	out.DOT = aut.DOT()
	text := fmt.Sprintf("formula: %s\n%s, %s, %s; automaton and dot (the structured result) hold the automaton, as wrapcheck ltl prints it and in DOT",
		out.Formula, verdict.Plural(len(aut.States), "state"), verdict.Plural(aut.NumEdges(), "edge"), verdict.Plural(aut.NumAcc, "acceptance set"))
	return summarized(text), out, nil
}

// ExamplesInput is the input of the examples tool.
type ExamplesInput struct {
	Name string `json:"name,omitempty" jsonschema:"an example such as approval/toctou; empty: list them all"`
}

// Example is one bundled example.
type Example struct {
	Name    string `json:"name"`
	Summary string `json:"summary" jsonschema:"the first sentence of its header comment"`
	Text    string `json:"text,omitempty" jsonschema:"the spec (only when one example is asked for)"`
}

// ExamplesOutput is the result of the examples tool.
type ExamplesOutput struct {
	Examples []Example `json:"examples"`
}

func (t *tools) examples(ctx context.Context, req *sdk.CallToolRequest, in ExamplesInput) (*sdk.CallToolResult, ExamplesOutput, error) {
	out := ExamplesOutput{Examples: []Example{}}
	all, err := exampleList()
	if err != nil {
		return nil, out, err
	}
	if in.Name == "" {
		for _, e := range all {
			e.Text = ""
			out.Examples = append(out.Examples, e)
		}
		return summarized(fmt.Sprintf("%d examples; examples (the structured result) lists each name with its summary; call examples with a name for its text", len(all))), out, nil
	}
	name := strings.TrimSuffix(in.Name, ".wrap")
	for _, e := range all {
		if e.Name == name {
			out.Examples = append(out.Examples, e)
			lines := strings.Count(e.Text, "\n")
			return summarized(fmt.Sprintf("%s: %s\nexamples[0].text (the structured result) holds the spec, %s", e.Name, e.Summary, verdict.Plural(lines, "line"))), out, nil
		}
	}
	return nil, out, fmt.Errorf("no example %q; call examples without a name for the list", in.Name)
}

// exampleList returns the bundled examples, sorted by name.
func exampleList() ([]Example, error) {
	paths, err := fs.Glob(examples.FS(), "*/*.wrap")
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Example
	for _, p := range paths {
		b, err := fs.ReadFile(examples.FS(), p)
		if err != nil {
			return nil, err
		}
		out = append(out, Example{Name: strings.TrimSuffix(p, ".wrap"), Summary: summary(string(b)), Text: string(b)})
	}
	return out, nil
}

// summary returns the first sentence of the leading comment of a spec:
// the comment's first paragraph, its lines joined, up to the first period
// that ends a sentence (one followed by the paragraph's end or by a space
// and a capital letter), or the whole paragraph when none does.
func summary(text string) string {
	var words []string
	for _, line := range strings.Split(text, "\n") {
		c, ok := strings.CutPrefix(strings.TrimSpace(line), "//")
		if !ok {
			break
		}
		if c = strings.TrimSpace(c); c == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		words = append(words, c)
	}
	para := strings.Join(words, " ")
	for i := 0; i < len(para); i++ {
		if para[i] != '.' {
			continue
		}
		if i+1 == len(para) {
			return para
		}
		if i+2 < len(para) && para[i+1] == ' ' && unicode.IsUpper(rune(para[i+2])) {
			return para[:i+1]
		}
	}
	return para
}

// addResources registers the documentation and the examples.
func addResources(s *sdk.Server) {
	for _, d := range []struct{ file, title string }{
		{"agents.md", "How to write and check a wrapper spec (for AI agents)"},
		{"language.md", "The wrap language reference"},
		{"patterns.md", "Patterns for wrapper specs"},
	} {
		file := d.file
		uri := "wrapcheck://docs/" + file
		s.AddResource(&sdk.Resource{URI: uri, Name: file, Title: d.title, MIMEType: "text/markdown"},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				b, err := fs.ReadFile(docs.FS(), file)
				if err != nil {
					return nil, err
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(b)}}}, nil
			})
	}
	all, err := exampleList()
	if err != nil {
		return
	}
	for _, e := range all {
		uri := "wrapcheck://examples/" + e.Name + ".wrap"
		text := e.Text
		s.AddResource(&sdk.Resource{URI: uri, Name: path.Base(e.Name) + ".wrap", Title: e.Summary, MIMEType: "text/plain"},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
			})
	}
}
