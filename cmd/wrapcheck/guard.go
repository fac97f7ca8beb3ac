package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// guardFlags are the flags of `wrapcheck guard`.
type guardFlags struct {
	defines       []string
	listen        string
	journal       string
	tokenFile     string
	allowViolated bool
	maxRuns       int
	maxHistory    int
	maxStates     int
	log           string
	mapping       string
	otlpEndpoint  string
	procs         int
}

// maxGuardProcs bounds --procs: each of the runtime's processors holds
// its own caches.
const maxGuardProcs = 256

func newGuardCmd() *cobra.Command {
	var f guardFlags
	cmd := &cobra.Command{
		Use:   "guard SPEC",
		Short: "decide each step of live runs against the spec before it is taken",
		Long: `guard holds the state of every open run of the spec and decides each step a
wrapper proposes before the step is taken: allow, or block with the reason
and the run's trace (see docs/guard.md). A step is an event in the shape of a
line of a run file of replay: {"action": "proc.act", "asked": {...},
"state": {...}}. Whatever guard cannot map is blocked (fail-closed).

It first checks the spec as check does, and refuses a spec whose checks fail
unless --allow-violated; a reachable state that is not terminal and has no
enabled action is reported as a warning either way.

Without --listen, requests are read from standard input, one JSON object a
line, and each decision is written to standard output as one line. With
--listen 127.0.0.1:PORT (a loopback address) or --listen unix:PATH, guard
serves HTTP: POST /v1/decide with the token of this launch in the
X-Wrapcheck-Token header, GET /metrics (Prometheus text, with the token)
and GET /healthz. --log json logs each decision on standard error. The token is written to
--token-file (mode 0600), else printed on standard error.

--journal FILE makes decisions durable: each decision that changes a run is
appended and synced before it is answered, and a guard started again on the
same journal resumes every open run.

While serving, the garbage collector runs at GOGC=400 unless $GOGC is set:
a guard's live heap is small, and at Go's default pace its collections were
the 99th percentile of its answers (docs/guard.md).

Exit codes: 0 served until the input ended or SIGINT/SIGTERM, 1 the spec's
checks fail (without --allow-violated), 2 the spec, the journal or the
command line is wrong.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGuard(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringVar(&f.listen, "listen", "", "serve HTTP on a loopback address (127.0.0.1:PORT) or a Unix socket (unix:PATH) instead of standard input and output")
	fl.StringVar(&f.journal, "journal", "", "append decisions to this file, synced before each answer, and resume its runs at start")
	fl.StringVar(&f.tokenFile, "token-file", "", "with --listen: write the token to this file (mode 0600) instead of standard error")
	fl.BoolVar(&f.allowViolated, "allow-violated", false, "serve a spec whose checks fail")
	fl.StringVar(&f.mapping, "mapping", "", "map steps sent as OpenTelemetry spans (a request's otlp) to actions, as replay --mapping does (see docs/replay.md)")
	fl.StringVar(&f.otlpEndpoint, "otlp-endpoint", "", "export an OpenTelemetry span per decision, in OTLP JSON, to this OTLP/HTTP traces URL (http://HOST:4318/v1/traces)")
	fl.StringVar(&f.log, "log", "off", "log each decision on standard error: json (one object a line), text, or off")
	fl.IntVar(&f.maxRuns, "max-runs", guard.DefaultMaxRuns, "the most runs open at once")
	fl.IntVar(&f.maxHistory, "max-history", guard.DefaultMaxHistory, "the most step records (12 bytes each) a run keeps for its traces")
	fl.IntVar(&f.maxStates, "max-states", guard.DefaultMaxStates, "the most spec states a run may be consistent with")
	fl.IntVar(&f.procs, "procs", 0, "with --listen: the threads that run Go code at once while serving (GOMAXPROCS); 0: 1, or $GOMAXPROCS when it is set (see docs/guard.md)")
	return cmd
}

func runGuard(cmd *cobra.Command, path string, f guardFlags) error {
	stderr := cmd.ErrOrStderr()
	usage := func(err error) error { return &exitError{code: exitUsage, err: err} }
	if f.maxRuns < 1 || f.maxHistory < 1 || f.maxStates < 1 {
		return usage(errors.New("--max-runs, --max-history and --max-states must be at least 1"))
	}
	if f.procs < 0 || f.procs > maxGuardProcs {
		return usage(fmt.Errorf("--procs must be between 0 and %d", maxGuardProcs))
	}
	if f.tokenFile != "" && f.listen == "" {
		return usage(errors.New("--token-file needs --listen"))
	}
	var logger *slog.Logger
	switch f.log {
	case "off":
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, nil))
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	default:
		return usage(fmt.Errorf("--log %s: want json, text or off", report.Escape(f.log)))
	}
	m, _, err := loadForCheck(cmd, path, f.defines)
	if err != nil {
		return err
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return usage(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Continue: every failing check is found, a deadlock behind an earlier
	// violation included.
	res, err := verify.Run(ctx, m, verify.Options{Program: prog, Continue: true})
	if err != nil {
		return usage(err)
	}
	for _, v := range report.Violations(res) {
		if v.Kind == verdict.Deadlock {
			fmt.Fprintf(stderr, "wrapcheck guard: warning: %s: a reachable state that is not terminal has no enabled action: the guard would leave an agent there with no allowed move\n", displayPath(path))
		}
	}
	if res.Verdict == verdict.Violated {
		if !f.allowViolated {
			if err := report.Text(stderr, m, res); err != nil {
				return err
			}
			return &exitError{code: exitViolated, err: fmt.Errorf("guard: the checks of %s fail: fix the spec, or serve it anyway with --allow-violated", displayPath(path))}
		}
		fmt.Fprintf(stderr, "wrapcheck guard: warning: the checks of %s fail; serving it anyway (--allow-violated)\n", displayPath(path))
	} else if res.Verdict == verdict.Unknown {
		fmt.Fprintf(stderr, "wrapcheck guard: warning: the checks of %s did not finish; serving it anyway\n", displayPath(path))
	}
	var mapping *replay.Mapping
	if f.mapping != "" {
		fh, err := os.Open(f.mapping)
		if err != nil {
			return usage(err)
		}
		mapping, err = replay.ParseMapping(m, displayPath(f.mapping), fh)
		fh.Close()
		if err != nil {
			return usage(err)
		}
	}
	digest, err := specDigest(path, f.defines)
	if err != nil {
		return usage(err)
	}
	var spans *guard.SpanExporter
	if f.otlpEndpoint != "" {
		if !strings.HasPrefix(f.otlpEndpoint, "http://") && !strings.HasPrefix(f.otlpEndpoint, "https://") {
			return usage(fmt.Errorf("--otlp-endpoint %s: want an http:// or https:// URL", clip(f.otlpEndpoint)))
		}
		spans = guard.NewSpanExporter(f.otlpEndpoint, "wrapcheck-guard")
		defer func() {
			if err := spans.Close(); err != nil {
				fmt.Fprintf(stderr, "wrapcheck guard: warning: exporting spans: %s\n", report.Escape(err.Error()))
			}
		}()
	}
	g, err := guard.New(prog, guard.Options{MaxRuns: f.maxRuns, MaxHistory: f.maxHistory, MaxStates: f.maxStates,
		Journal: f.journal, SpecDigest: digest, Logger: logger, Mapping: mapping, Spans: spans})
	if err != nil {
		return usage(err)
	}
	defer g.Close()
	if f.journal != "" && g.Runs() > 0 {
		fmt.Fprintf(stderr, "wrapcheck guard: %d open runs resumed from the journal\n", g.Runs())
	}
	if p := serveGCPercent(os.Getenv("GOGC")); p > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(p))
	}
	if f.listen == "" {
		return g.ServeLines(cmd.InOrStdin(), cmd.OutOrStdout())
	}
	return serveGuardHTTP(ctx, cmd, g, f)
}

// serveGCPercent returns the collector's target (GOGC) guard serves with,
// given the environment's GOGC, or 0 to leave the runtime's:
// guard.ServeGCPercent unless GOGC is set.
func serveGCPercent(env string) int {
	if env != "" {
		return 0
	}
	return guard.ServeGCPercent
}

// specDigest identifies the spec and its constants in the journal.
func specDigest(path string, defines []string) (string, error) {
	if path == "-" {
		return "", errors.New("guard reads its spec from a file, not standard input")
	}
	src, err := readSpec(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(src)
	for _, d := range defines {
		h.Write([]byte{0})
		h.Write([]byte(d))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// serveGuardHTTP serves g on the --listen address until ctx is done.
func serveGuardHTTP(ctx context.Context, cmd *cobra.Command, g *guard.Guard, f guardFlags) error {
	stderr := cmd.ErrOrStderr()
	l, gate, where, err := guard.Listen(f.listen)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--listen %s: %v", clip(f.listen), err)}
	}
	defer l.Close()
	if f.tokenFile != "" {
		if err := writeToken(f.tokenFile, gate.Token); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		fmt.Fprintf(stderr, "wrapcheck guard: listening on %s (token in %s)\n", report.Escape(where), report.Escape(displayPath(f.tokenFile)))
	} else {
		fmt.Fprintf(stderr, "wrapcheck guard: listening on %s (token %s)\n", report.Escape(where), gate.Token)
	}
	if p := serveProcs(f.procs, os.Getenv("GOMAXPROCS")); p > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
	}
	return g.Serve(ctx, l, gate)
}

// serveProcs returns the GOMAXPROCS guard serves HTTP with, given --procs
// and the environment's GOMAXPROCS, or 0 to leave the runtime's. One by
// default: decisions are taken under one lock, and the guard shares its
// cores with the agents it answers; on the 2-core guest of docs/guard.md
// two runtimes of two threads each (the guard's and its clients') had a
// p99 of 1.6–1.9 ms, the guard's on one thread 0.85–1.1 ms.
func serveProcs(procs int, env string) int {
	switch {
	case procs > 0:
		return procs
	case env != "":
		return 0
	}
	return 1
}

// writeToken writes the token to path, readable by its owner alone.
func writeToken(path, token string) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := fh.Chmod(0o600); err != nil {
		fh.Close()
		return err
	}
	if _, err := fh.WriteString(token + "\n"); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
