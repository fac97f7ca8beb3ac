package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/cluster"
	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// checkFlags are the flags of `wrapcheck check`, copied into
// checker.Options.
type checkFlags struct {
	defines    []string
	workers    int
	noSymmetry bool
	noPOR      bool
	compact    bool
	noDeadlock bool
	failFast   bool
	cont       bool
	explain    bool
	why        bool
	maxStates  int64
	maxDepth   int
	timeout    time.Duration
	memory     string
	format     string
	only       []string
	progress   string
	strict     bool
	compile    bool      // --compile (compile.go)
	dist       distFlags // --store and the worker's flags (worker.go)
	watches    []string  // --watch (watch.go)
	fullStates bool      // --full-states
	coverage   bool      // --coverage
	sweep      *sweepRun // set by a sweep (sweep.go) for each value it checks
}

func newCheckCmd() *cobra.Command { return checkCommand(false) }

// options are the verify.Options of the flags (mem: --memory in bytes).
// The flags' defaults give verify.Options{} (TestCheckDefaults): the zero
// value of the library's options is the command line's defaults.
func (f checkFlags) options(mem int64) verify.Options {
	return verify.Options{
		Workers:      f.workers,
		MaxStates:    f.maxStates,
		MaxDepth:     f.maxDepth,
		NoDeadlock:   f.noDeadlock,
		Continue:     f.cont,
		Only:         f.only,
		MemoryBudget: mem,
		NoSymmetry:   f.noSymmetry,
		NoPOR:        f.noPOR,
		HashCompact:  f.compact,
	}
}

// checkCommand returns `check`, or with worker set `worker` (worker.go),
// which takes the same flags but --workers.
func checkCommand(worker bool) *cobra.Command {
	var f checkFlags
	f.dist.worker = worker
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "explore every reachable state and report the shortest counterexample",
		Long: `check explores the reachable states of the spec in FILE and checks all
invariants, assertions, runtime errors, deadlocks and properties. A violation
prints the shortest counterexample, the same for any --workers. The search
stops at the end of the breadth-first level in which it finds the first
violation; --continue explores every reachable state and reports the first
violation of every check that fails.

Each FILE may be a directory (its .wrap files, recursively, in name
order) or - (standard input). With several files, check prints one report
per file and a summary: text reports one after the other, JSON one object
per file per line then a summary object, SARIF one run per file, JUnit one
testsuite per file, DOT one graph per file (Mermaid takes one file).

-D NAME=LO..HI (or NAME=A,B,C) sweeps a constant: one check per value, a
table of verdicts (JSON: one object a line, then a summary), stopping at the
first violated value unless --continue; two swept names check their cross
product.

Exit codes: 0 every check holds, 1 a violation was found (or, with --strict,
a warning), 2 the spec or the command line is wrong, 3 the search stopped
early (a limit or an interrupt) with no violation found. With several files
the worst: 2, then 1, then 3, then 0.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if params, fixed, err := parseSweep(f.defines); err != nil || len(params) > 0 {
				// -D N=1..6: one check per value (sweep.go)
				if err != nil {
					return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: err})
				}
				if len(args) != 1 {
					return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: fmt.Errorf("a sweep (-D %s=...) takes one spec, not %d", report.Escape(params[0].name), len(args))})
				}
				return runSweep(cmd, args[0], f, params, fixed)
			}
			if f.compile && os.Getenv(nativeEnv) == "" {
				argv, _ := cmd.Context().Value(argvKey{}).([]string)
				return runCompiled(cmd, argv, args, f)
			}
			paths, err := expandPaths(args)
			if err != nil {
				return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: err})
			}
			if len(paths) == 1 {
				return runCheck(cmd, paths[0], f)
			}
			if f.dist.store != "" {
				return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: fmt.Errorf("--store takes one spec, not %d", len(paths))})
			}
			return checkMany(cmd, paths, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable); -D NAME=LO..HI or NAME=A,B,C sweeps it")
	if !worker {
		fl.IntVar(&f.workers, "workers", 0, "search goroutines (0: one per core)")
	}
	fl.BoolVar(&f.noSymmetry, "no-symmetry", false, "turn symmetry reduction off")
	fl.BoolVar(&f.noPOR, "no-por", false, "turn partial-order reduction off")
	fl.BoolVar(&f.compact, "hash-compact", false, "store visited states as 64-bit fingerprints (9-11 bytes per visited state in memory, up to 14 past 6*10^7 states, plus one BFS level; trace records and the level being expanded go to $TMPDIR); reports the collision probability; properties keep a fingerprint and a derivation per system state")
	fl.BoolVar(&f.why, "explain", false, "mark the essential steps of each finite counterexample (*) and say why each step matters, in every format; for a lasso, check which fairness would make the property hold (as wrapcheck explain does)")
	fl.BoolVar(&f.explain, "explain-reduction", false, "also search with each combination of reductions and print the stored states of each")
	fl.BoolVar(&f.noDeadlock, "no-deadlock", false, "do not report states with no enabled action")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop at the end of the level of the first violation (the default; accepted for older scripts)")
	fl.BoolVar(&f.cont, "continue", false, "explore every reachable state after a violation and report every violated check, each with its shortest trace (the stats are then the whole state space's)")
	fl.Int64Var(&f.maxStates, "max-states", 0, "stop after storing this many states (0: no limit)")
	fl.IntVar(&f.maxDepth, "max-depth", 0, "stop at this BFS depth (0: no limit)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s or 5m (0: no limit)")
	fl.StringVar(&f.memory, "memory", "", "memory budget the search honours, e.g. 4GiB (default: none)")
	fl.StringVar(&f.format, "format", "text", "output format: text, json, sarif, junit, mermaid, dot or itf")
	fl.StringArrayVar(&f.only, "only", nil, "check only this invariant or property (repeatable)")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (a live line on a terminal), json (NDJSON lines) or off")
	fl.BoolVar(&f.compile, "compile", false, "generate Go code for the spec's guards, actions and invariants, build it once into a cached binary (needs the Go toolchain; wrapcheck cache lists and cleans the cache) and run the check there")
	fl.StringArrayVar(&f.watches, "watch", nil, "show the value of this expression over the state at every step of a trace, in every format (repeatable)")
	fl.BoolVar(&f.fullStates, "full-states", false, "text: show every variable at every step of a trace, not only what the step changed")
	fl.BoolVar(&f.coverage, "coverage", false, "text: after the statistics, per action the states that enable it, the successors it generated and the new states it reached, and the actions that never fired (a second pass over the reachable states, without reduction)")
	fl.BoolVar(&f.strict, "strict", false, "treat warnings (never-fired actions, vacuous invariants, vet's findings) as failures: exit 1")
	addDistFlags(cmd, &f.dist)
	return cmd
}

func runCheck(cmd *cobra.Command, path string, f checkFlags) error {
	render, err := newRenderer(cmd, f)
	if err != nil {
		return err
	}
	file := ""
	if path != "" {
		file = displayPath(path)
	}
	usage := func(err error) error { return renderError(cmd, f.format, file, &exitError{code: exitUsage, err: err}) }
	if f.timeout < 0 { // the other limits are verify.Options, which Validate checks
		return usage(fmt.Errorf("--timeout %s: must not be negative", f.timeout))
	}
	if len(f.dist.partition) > 0 && f.dist.store == "" {
		return usage(fmt.Errorf("--partition needs --store: it chooses the workers of a distributed search"))
	}
	if f.failFast && f.cont {
		return usage(fmt.Errorf("--fail-fast and --continue contradict each other"))
	}
	if f.format != "text" && (f.coverage || f.fullStates) {
		flag := "--coverage"
		if !f.coverage {
			flag = "--full-states"
		}
		return usage(fmt.Errorf("%s is an option of the text output, not of --format %s", flag, report.Escape(f.format)))
	}
	if !slices.Contains(progressModes, f.progress) {
		return usage(fmt.Errorf("--progress %s: want %s", report.Escape(f.progress), strings.Join(progressModes, ", ")))
	}
	mem, err := parseSize(f.memory)
	if err != nil {
		return usage(err)
	}
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	// The limits cover loading and compiling the spec, whose cost the
	// spec controls, as they cover the search.
	ld, err := loadLimited(ctx, mem, func(ctx context.Context) (loadedSpec, error) {
		return loadAndCompileWatched(ctx, cmd, path, f.defines, f.watches)
	})
	if ls, ok := err.(*loadStopped); ok {
		return renderLoadStopped(cmd, render, file, ls, start)
	}
	if err != nil {
		return renderError(cmd, f.format, file, err)
	}
	m, vet, compiled := ld.m, ld.vet, ld.prog
	opts := f.options(mem)
	if err := opts.Validate(m); err != nil {
		return usage(flagError(err))
	}
	// One compilation serves the searches and the rendering.
	opts.Program = compiled
	printNativeStats(cmd, compiled)
	check := verify.Run
	finish := func() error { return nil }
	limits := ctx // --timeout and the signals, without a local worker's failure
	if f.dist.store != "" {
		ctx, finish, err = startDist(ctx, cmd, path, f, &opts)
		if err != nil {
			return renderError(cmd, f.format, file, stoppedError(limits, f.timeout, err))
		}
		if f.dist.worker && f.dist.index > 0 {
			check = verify.Safety // worker 0 checks the properties and reports
		}
	}
	prog := newProgress(cmd.ErrOrStderr(), f.progress)
	if prog != nil {
		opts.Progress = prog.update
	}
	res, err := check(ctx, m, opts)
	if prog != nil {
		prog.done()
	}
	if ferr := finish(); err == nil {
		err = ferr
	}
	if err != nil {
		if errors.Is(err, cluster.ErrStale) {
			// A worker replaced by a restarted one: not a failure of the run.
			return renderError(cmd, f.format, file, &exitError{code: exitIncomplete, err: err})
		}
		return renderError(cmd, f.format, file, stoppedError(limits, f.timeout, err))
	}
	if f.dist.worker && f.dist.index > 0 {
		return verdictExit(res)
	}
	if f.why {
		if err := explain.Attach(ctx, m, res, opts); err != nil {
			return renderError(cmd, f.format, file, &exitError{code: exitUsage, err: err})
		}
	}
	if f.coverage {
		// A pass of its own over the reachable states, only when asked:
		// the search counts nothing more.
		render = textRenderer(cmd, f, checker.CoverageOf(ctx, compiled, opts.MaxStates))
	}
	if f.sweep != nil {
		f.sweep.record(m, res)
	}
	if err := render(cmd.OutOrStdout(), m, compiled, res, vet); err != nil {
		return err
	}
	if err := annotateWarnings(cmd, m, res, vet, f.strict); err != nil {
		return err
	}
	if f.explain {
		if err := explainReduction(cmd, ctx, m, opts, f.format == "text"); err != nil {
			return err
		}
	}
	switch res.Verdict {
	case verdict.Violated:
		return &exitError{code: exitViolated}
	case verdict.Unknown:
		return &exitError{code: exitIncomplete}
	}
	if f.strict && len(report.CoverageWarnings(m, res))+len(vet) > 0 {
		return &exitError{code: exitViolated}
	}
	return nil
}

// stoppedError is the exit of a run that failed with err: exit 3 and the
// reason when --timeout or a signal ended ctx (a store's request that the
// deadline cut), else exit 2.
func stoppedError(ctx context.Context, timeout time.Duration, err error) error {
	if ctx.Err() == nil {
		return &exitError{code: exitUsage, err: err}
	}
	reason := "interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason = fmt.Sprintf("timeout (--timeout %v)", timeout)
	}
	return &exitError{code: exitIncomplete, err: fmt.Errorf("stopped before the end: %s: %w", reason, err)}
}

// flagError words an option that verify.Options.Validate rejects as
// the flag that set it: "--only Nope: no invariant or property of that
// name in M". Any other error is returned as it is.
func flagError(err error) error {
	var oe *verify.OptionError
	if errors.As(err, &oe) {
		return fmt.Errorf("--%s %s: %s", oe.Option, report.Escape(oe.Value), oe.Msg)
	}
	return err
}

// expandPaths replaces each directory of args by the .wrap files under it,
// in name order.
func expandPaths(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if a == "-" || err != nil || !fi.IsDir() {
			paths = append(paths, a) // a missing file is reported by its check
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".wrap") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no .wrap file in this directory", displayPath(a))
		}
		slices.Sort(found)
		paths = append(paths, found...)
	}
	return paths, nil
}

// worse reports whether exit code a is worse than b: 2, then 1, then 3,
// then 0.
func worse(a, b int) bool {
	rank := func(c int) int {
		switch c {
		case exitUsage:
			return 3
		case exitViolated:
			return 2
		case exitIncomplete:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// checkMany checks each of paths as runCheck does, and prints the reports
// in one document of the chosen format, then a summary; it exits with the
// worst code.
func checkMany(cmd *cobra.Command, paths []string, f checkFlags) error {
	if f.format == "mermaid" || f.format == "itf" {
		return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: fmt.Errorf("--format %s takes one file, not %d", f.format, len(paths))})
	}
	if _, err := newRenderer(cmd, f); err != nil {
		return err
	}
	stdout := cmd.OutOrStdout()
	defer cmd.SetOut(stdout)
	worst := exitHolds
	var docs [][]byte
	counts := map[string]int{}
	for _, path := range paths {
		var buf bytes.Buffer
		cmd.SetOut(&buf)
		code := exitHolds
		if err := runCheck(cmd, path, f); err != nil {
			var ee *exitError
			if !errors.As(err, &ee) {
				return err
			}
			code = ee.code
			if ee.err != nil {
				w := cmd.ErrOrStderr()
				if f.format == "text" {
					w = &buf // the file's section of the report
				}
				fmt.Fprintln(w, errorText(ee.err))
			}
		}
		if worse(code, worst) {
			worst = code
		}
		counts[outcomeName(code)]++
		docs = append(docs, buf.Bytes())
	}
	summary := fmt.Sprintf("%d files: %d holds, %d violated, %d incomplete, %d error", len(paths),
		counts["holds"], counts["violated"], counts["incomplete"], counts["error"])
	var err error
	switch f.format {
	case "json":
		for _, d := range docs {
			var line bytes.Buffer
			if err = json.Compact(&line, d); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s\n", line.Bytes())
		}
		err = json.NewEncoder(stdout).Encode(manySummary{Format: 1, Summary: outcomeCounts{Files: len(paths),
			Holds: counts["holds"], Violated: counts["violated"], Incomplete: counts["incomplete"], Error: counts["error"]}, ExitCode: worst})
	case "sarif":
		err = report.MergeSARIF(stdout, docs)
	case "junit":
		err = report.MergeJUnit(stdout, docs)
	case "dot":
		for _, d := range docs {
			if _, err = stdout.Write(d); err != nil {
				break
			}
		}
	default:
		for i, d := range docs {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "== %s\n", displayPath(paths[i]))
			stdout.Write(d)
		}
		_, err = fmt.Fprintf(stdout, "\n%s\n", summary)
	}
	if err != nil {
		return err
	}
	if worst == exitHolds {
		return nil
	}
	return &exitError{code: worst}
}

// manySummary is the last JSON line of a check of several files.
type manySummary struct {
	Format   int           `json:"format"`
	Summary  outcomeCounts `json:"summary"`
	ExitCode int           `json:"exit_code"`
}

// outcomeCounts counts the files of a check of several files by outcome.
type outcomeCounts struct {
	Files      int `json:"files"`
	Holds      int `json:"holds"`
	Violated   int `json:"violated"`
	Incomplete int `json:"incomplete"`
	Error      int `json:"error"`
}

// outcomeName names the outcome of an exit code in the summary.
func outcomeName(code int) string {
	switch code {
	case exitViolated:
		return "violated"
	case exitUsage:
		return "error"
	case exitIncomplete:
		return "incomplete"
	}
	return "holds"
}

// progressModes lists the --progress values.
var progressModes = []string{"auto", "json", "off"}

// loadedSpec is a spec loaded for check or simulate: the model, vet's
// warnings about it, and the model compiled.
type loadedSpec struct {
	m    *spec.Model
	vet  []report.Diagnostic
	prog *machine.Program
}

// loadAndCompile is loadForCheckContext, then machine.Compile. Any error
// but ctx's is a usage error (exit 2).
func loadAndCompile(ctx context.Context, cmd *cobra.Command, path string, defines []string) (loadedSpec, error) {
	return loadAndCompileWatched(ctx, cmd, path, defines, nil)
}

// loadAndCompileWatched is loadAndCompile with the expressions of
// --watch checked with the spec (spec.Options.Watches).
func loadAndCompileWatched(ctx context.Context, cmd *cobra.Command, path string, defines, watches []string) (loadedSpec, error) {
	m, vet, err := loadForCheckWatched(ctx, cmd, path, defines, watches)
	if err != nil {
		return loadedSpec{}, err
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return loadedSpec{}, &exitError{code: exitUsage, err: err}
	}
	return loadedSpec{m: m, vet: vet, prog: prog}, nil
}

// renderLoadStopped renders the outcome of a check that a limit stopped
// while it loaded the spec (loadLimited): incomplete, with the reason and
// no state explored, in the chosen format; exit 3.
func renderLoadStopped(cmd *cobra.Command, render renderFunc, file string, ls *loadStopped, start time.Time) error {
	m := &spec.Model{Name: file, Filename: file} // not parsed yet, or not whole
	res := &verdict.Result{Verdict: verdict.Unknown, Stop: ls.reason,
		Notes: []string{"stopped while loading the spec (reading, checking, compiling it): no state was explored"},
		Stats: verdict.Stats{Seconds: time.Since(start).Seconds()}}
	if err := render(cmd.OutOrStdout(), m, nil, res, nil); err != nil {
		return err
	}
	return &exitError{code: exitIncomplete}
}

// loadForCheck is loadForCheckContext without a limit.
func loadForCheck(cmd *cobra.Command, path string, defines []string) (*spec.Model, []report.Diagnostic, error) {
	return loadForCheckContext(context.Background(), cmd, path, defines)
}

// loadForCheckContext reads, parses, checks and lowers the spec at path
// ("-": standard input) and returns vet's warnings about it. Once ctx is
// done it stops soon after (spec.Options.Context) with an error wrapping
// ctx's. Any other error is a usage error (exit 2).
func loadForCheckContext(ctx context.Context, cmd *cobra.Command, path string, defines []string) (*spec.Model, []report.Diagnostic, error) {
	return loadForCheckWatched(ctx, cmd, path, defines, nil)
}

// loadForCheckWatched is loadForCheckContext with the expressions of
// --watch parsed (parseWatches) and checked with the spec.
func loadForCheckWatched(ctx context.Context, cmd *cobra.Command, path string, defines, watches []string) (*spec.Model, []report.Diagnostic, error) {
	defs, err := parseDefines(defines)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	if defs.Watches, err = parseWatches("--watch", watches); err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	defs.Context = ctx
	var src []byte
	name := displayPath(path)
	if path == "-" {
		name = "<stdin>"
		src, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxSpecBytes+1))
		if err == nil && len(src) > maxSpecBytes {
			err = fmt.Errorf("<stdin>: longer than %d MiB, the limit for a spec file", maxSpecBytes>>20)
		}
	} else {
		src, err = readSpecContext(ctx, path)
	}
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	file, err := syntax.Parse(name, src)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	m, err := spec.Check(file, defs)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	var ws []report.Diagnostic
	for _, w := range spec.Vet(file, m) {
		ws = append(ws, report.Diagnostic{Pos: w.Pos, Msg: w.Msg})
	}
	return m, ws, nil
}

// progress prints the search's progress on stderr: a live line on a
// terminal, NDJSON lines for tools, or nothing.
type progress struct {
	w     io.Writer
	json  bool
	live  bool
	wrote bool
}

func newProgress(w io.Writer, mode string) *progress {
	switch mode {
	case "json":
		return &progress{w: w, json: true}
	case "auto":
		if f, ok := w.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				return &progress{w: w, live: true}
			}
		}
	}
	return nil
}

// progressLine is one line of --progress json (documented in docs/ci.md).
type progressLine struct {
	States      int64   `json:"states"`      // stored states (product nodes for a property)
	Transitions int64   `json:"transitions"` // successors generated (product edges)
	Depth       int     `json:"depth"`       // the breadth-first level being expanded
	Frontier    int     `json:"frontier"`    // states in that level (nodes left to expand)
	Seconds     float64 `json:"seconds"`     // since the search started
	HeapBytes   uint64  `json:"heap_bytes"`
	Property    string  `json:"property,omitempty"` // the LTL property being checked
}

func (p *progress) update(s verdict.Progress) {
	if p.json {
		b, err := json.Marshal(progressLine{States: s.States, Transitions: s.Transitions, Depth: s.Depth,
			Frontier: s.Frontier, Seconds: s.Elapsed.Seconds(), HeapBytes: s.HeapBytes, Property: s.Property})
		if err == nil {
			fmt.Fprintf(p.w, "%s\n", b)
		}
		return
	}
	rate := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		rate = float64(s.States) / sec
	}
	if s.Property != "" {
		fmt.Fprintf(p.w, "\r\033[Kproperty %s: %d product nodes, %d to expand, depth %d, %.0f nodes/s, %d MiB",
			s.Property, s.States, s.Frontier, s.Depth, rate, s.HeapBytes>>20)
		p.wrote = true
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%d states, %d in level %d, %.0f states/s, %d MiB",
		s.States, s.Frontier, s.Depth, rate, s.HeapBytes>>20)
	p.wrote = true
}

func (p *progress) done() {
	if p.live && p.wrote {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// explainReduction prints what each reduction buys: the safety search's
// figures with none, symmetry, partial-order reduction and both, and the
// LTL product's nodes when the spec has properties. The table
// goes to stdout after a text result, to stderr after other formats.
func explainReduction(cmd *cobra.Command, ctx context.Context, m *spec.Model, opts verify.Options, text bool) error {
	rows, err := verify.Explain(ctx, m, opts)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	w := cmd.ErrOrStderr()
	if text {
		w = cmd.OutOrStdout()
		fmt.Fprintln(w)
	}
	product := false
	for _, r := range rows {
		product = product || r.ProductNodes >= 0
	}
	if product {
		fmt.Fprintf(w, "%-13s %12s %14s %14s %9s  %s\n", "reduction", "states", "transitions", "product nodes", "seconds", "verdict")
	} else {
		fmt.Fprintf(w, "%-13s %12s %14s %9s  %s\n", "reduction", "states", "transitions", "seconds", "verdict")
	}
	for _, r := range rows {
		if product {
			nodes := "–"
			if r.ProductNodes >= 0 {
				nodes = fmt.Sprint(r.ProductNodes)
			}
			fmt.Fprintf(w, "%-13s %12d %14d %14s %9.3f  %s\n", r.Name, r.States, r.Transitions, nodes, r.Seconds, r.Verdict)
			continue
		}
		fmt.Fprintf(w, "%-13s %12d %14d %9.3f  %s\n", r.Name, r.States, r.Transitions, r.Seconds, r.Verdict)
	}
	if len(m.Monitors) > 0 {
		bits := 0
		for _, sl := range m.Slots {
			if m.Vars[sl.Var].Monitor != nil {
				bits += sl.Bits
			}
		}
		fmt.Fprintf(w, "past-time operators: %d monitor bits added to each state (%d subformulas); states count pairs of model state and monitor values\n", bits, len(m.Monitors))
	}
	return nil
}
