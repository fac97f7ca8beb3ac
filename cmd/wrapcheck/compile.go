package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	source "github.com/wrapcheck/wrapcheck"
	"github.com/wrapcheck/wrapcheck/internal/native"
	"github.com/wrapcheck/wrapcheck/machine"
)

// Compiled mode (check --compile): the Go code generated for each spec's
// model is built, with the source embedded in this binary (package
// wrapcheck), into a binary of its own, kept in the user's cache
// directory under the hash of that source and of the generated code; the
// check then runs in that binary, with the same arguments but --compile,
// and its output and exit code are passed through (package
// internal/native builds the binary and keeps the cache bounded, safe for
// processes that share it, and private to the user). The search is
// the same one: only the units the generator supports
// (machine/nativegen.go) run generated code instead of closures.

const (
	// nativeEnv marks the process run by --compile (its value is the
	// source hash), which runs the check itself.
	nativeEnv = "WRAPCHECK_NATIVE"
	// nativeStatsEnv makes check print how many units of each model run
	// generated code, on standard error (for tests).
	nativeStatsEnv = "WRAPCHECK_NATIVE_STATS"
)

// argvKey is the key of the command line (after the program name) in the
// context of the root command, which run sets.
type argvKey struct{}

// runCompiled runs `check` in the binary built for the specs of args
// (argv: the whole command line after the program name). The build is
// bounded by --timeout and ended by SIGINT and SIGTERM (exit 3, with the
// reason); the binary gets the time --timeout leaves.
func runCompiled(cmd *cobra.Command, argv, args []string, f checkFlags) error {
	fail := func(err error) error {
		return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: fmt.Errorf("--compile: %w", err)})
	}
	if f.timeout < 0 {
		return fail(fmt.Errorf("--timeout %s: must not be negative", f.timeout))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var deadline time.Time
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
		deadline, _ = ctx.Deadline()
	}
	stopped := func() error {
		reason := "interrupted"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = fmt.Sprintf("timeout (--timeout %v)", f.timeout)
		}
		return renderError(cmd, f.format, "", &exitError{code: exitIncomplete, err: fmt.Errorf("check --compile: stopped before the end, while loading and building: %s", reason)})
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fail(errors.New("no Go toolchain (go) on PATH: install Go, or run without --compile"))
	}
	paths, err := expandPaths(args)
	if err != nil {
		return renderError(cmd, f.format, "", &exitError{code: exitUsage, err: err})
	}
	var stdin []byte
	if slices.Contains(paths, "-") {
		if stdin, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxSpecBytes+1)); err != nil {
			return fail(err)
		}
		cmd.SetIn(bytes.NewReader(stdin))
	}
	// Loading the specs and generating their code end at the deadline or
	// a signal too: loading that does not end (a FIFO for a spec) is left
	// behind, as limited leaves work that does not look at its context.
	srcsc := make(chan []*machine.NativeSource, 1)
	go func() { srcsc <- nativeSources(ctx, cmd, paths, f.defines) }()
	var srcs []*machine.NativeSource
	select {
	case srcs = <-srcsc:
	case <-ctx.Done():
		return stopped()
	}
	bin, release, err := nativeBinary(ctx, goTool, srcs, cmd.ErrOrStderr())
	if ctx.Err() != nil {
		if err == nil {
			release()
		}
		return stopped()
	}
	if err != nil {
		return fail(err)
	}
	defer release() // the binary is in use until the child ends
	var childArgs, rest []string
	for i, a := range argv {
		if a == "--" {
			rest = argv[i:]
			break
		}
		if a != "--compile" && !strings.HasPrefix(a, "--compile=") {
			childArgs = append(childArgs, a)
		}
	}
	if !deadline.IsZero() {
		// The time the build left, in place of --timeout's (the last value
		// of a flag wins).
		childArgs = append(childArgs, "--timeout="+max(time.Until(deadline), time.Millisecond).String())
	}
	childArgs = append(childArgs, rest...)
	hash, _ := source.SourceHash()
	c := exec.Command(bin, childArgs...)
	c.Env = append(os.Environ(), nativeEnv+"="+hash)
	c.Stdout, c.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	} else {
		c.Stdin = cmd.InOrStdin()
	}
	// An interrupt from the terminal reaches the child too (same process
	// group); a SIGTERM sent to this process alone (a job runner's
	// cancellation, `timeout`) is passed on to it. Either way the child
	// reports what it found, and its exit code is passed on (this process
	// still catches both, through ctx: it waits for the child).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err = c.Start(); err != nil {
		return fail(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sig:
				if s == syscall.SIGTERM {
					c.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	err = c.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		if ee.ExitCode() == 0 {
			return nil
		}
		return &exitError{code: ee.ExitCode()}
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// nativeSources generates the code of the model of each spec that loads
// and compiles (the others fail in the compiled binary as they would
// here).
func nativeSources(ctx context.Context, cmd *cobra.Command, paths, defines []string) []*machine.NativeSource {
	var out []*machine.NativeSource
	for _, path := range paths {
		m, _, err := loadForCheckContext(ctx, cmd, path, defines)
		if err != nil {
			continue
		}
		p, err := machine.Compile(m)
		if err != nil {
			continue
		}
		if ns, err := machine.GenerateNative(p); err == nil {
			out = append(out, ns)
		}
	}
	return out
}

// nativeBinary returns the path of the binary holding srcs, building it
// into the cache when it is not there yet (or is not the binary a build
// recorded: see package internal/native), and a release function: until
// it is called, no process removes the binary. It then trims the cache
// (after a build, or once a day), and a failure there is only reported
// on log: it never changes a check's outcome. The end of ctx ends the build (and the wait
// for another process's) with ctx's error.
func nativeBinary(ctx context.Context, goTool string, srcs []*machine.NativeSource, log io.Writer) (bin string, release func(), err error) {
	rel, err := native.EntryName(srcs)
	if err != nil {
		return "", nil, err
	}
	cache, err := native.Open()
	if err != nil {
		return "", nil, err
	}
	lock, err := cache.Acquire(rel)
	if err != nil {
		return "", nil, fmt.Errorf("the cache of compiled binaries (%s moves it): %w", native.DirEnv, err)
	}
	built, err := cache.BuildOnce(ctx, goTool, rel, srcs, log)
	if err != nil {
		lock.Release()
		return "", nil, err
	}
	if err := cache.EvictDue(built); err != nil {
		fmt.Fprintf(log, "wrapcheck: --compile: cache clean-up (the check goes on): %s\n", escapeLines(err.Error()))
	}
	return filepath.Join(cache.Root, filepath.FromSlash(rel), native.BinName), lock.Release, nil
}

// printNativeStats reports, when nativeStatsEnv is set, how many units of
// p run generated code, and checks the generated parts of the search
// against the generic ones (machine.Program.CheckNative).
func printNativeStats(cmd *cobra.Command, p *machine.Program) {
	if os.Getenv(nativeStatsEnv) == "" {
		return
	}
	n, u := p.Native()
	fmt.Fprintf(cmd.ErrOrStderr(), "wrapcheck: native code for %d of %d units\n", n, u)
	// The generated parts of the search against the generic ones, on
	// random states: a difference is a line a test sees.
	if err := p.CheckNative(1, 3000); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "wrapcheck: native self-check: %v\n", err)
	}
}
