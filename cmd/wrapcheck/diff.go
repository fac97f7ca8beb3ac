package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/diff"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// diffFlags are the flags of `wrapcheck diff`.
type diffFlags struct {
	defines      []string
	maps         []string
	git          string
	format       string
	maxNodes     int64
	maxSetStates int64
	maxStates    int64
	workers      int
	noChecks     bool
	timeout      time.Duration
	memory       string
}

func newDiffCmd() *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff (OLD NEW | --git REV [FILE...])",
		Short: "compare the behaviours and verdicts of two revisions of a spec",
		Long: `diff compares two revisions of a spec, OLD and NEW. It prints, in each
direction, the shortest trace that one allows and the other does not, observed
through the variables the two share and the action labels, and a table of every
check's verdict in both. --map old=new renames a variable or an action of OLD
to its name in NEW (repeatable).

With --git REV, OLD is each FILE as it was at the git revision REV (git show
REV:FILE) and NEW is the FILE in the working tree; a directory stands for the
.wrap files under it (git ls-files), and no FILE for every .wrap file of the
repository. A file that did not exist at REV is reported and skipped.

Exit codes: 0 the same behaviours and verdicts, 1 they differ, 2 a spec or the
command line is wrong, 3 no difference was found but a search was incomplete.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant in both specs: -D NAME=VALUE (repeatable)")
	fl.StringArrayVar(&f.maps, "map", nil, "rename a variable or action of OLD to NEW's name: --map old=new (repeatable)")
	fl.StringVar(&f.git, "git", "", "compare each FILE with its version at this git revision")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or markdown")
	fl.Int64Var(&f.maxNodes, "max-nodes", 0, fmt.Sprintf("explore at most this many pairs per direction (0: %d)", diff.DefaultMaxNodes))
	fl.Int64Var(&f.maxSetStates, "max-set-states", 0, fmt.Sprintf("hold at most this many states in the sets of the other spec (0: %d)", diff.DefaultMaxSetStates))
	fl.Int64Var(&f.maxStates, "max-states", 0, "stop each check of the verdict table after this many states (0: no limit)")
	fl.IntVar(&f.workers, "workers", 0, "search goroutines of the checks (0: one per core)")
	fl.BoolVar(&f.noChecks, "no-checks", false, "compare the behaviours only, not the verdicts")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s or 5m (0: no limit); what is left is incomplete")
	fl.StringVar(&f.memory, "memory", "", "memory budget of the comparison and the checks, e.g. 1GiB (default: none); what is left is incomplete")
	return cmd
}

// diffPair is one comparison: names to print, and the sources.
type diffPair struct {
	oldName, newName string
	oldSrc, newSrc   []byte
}

func runDiff(cmd *cobra.Command, args []string, f diffFlags) error {
	switch f.format {
	case "text", "json", "markdown":
	default:
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text, json or markdown", f.format)}
	}
	if f.maxNodes < 0 || f.maxSetStates < 0 || f.maxStates < 0 || f.workers < 0 || f.timeout < 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("limits must not be negative")}
	}
	defs, err := parseDefines(f.defines)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	rename := map[string]string{}
	for _, m := range f.maps {
		o, n, ok := strings.Cut(m, "=")
		if !ok || o == "" || n == "" {
			return &exitError{code: exitUsage, err: fmt.Errorf("--map %s: want OLD=NEW", m)}
		}
		rename[o] = n
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	mem, err := parseSize(f.memory)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// The heap's watchdog ends the comparison as the deadline does.
	ctx, release := withMemoryBudget(ctx, mem)
	defer release()
	// Loading the specs stops at the limit too (spec.Options.Context).
	defs.Context = ctx
	stopped := func() error {
		return &exitError{code: exitIncomplete, err: fmt.Errorf("diff: stopped before the end: %s", stopWhat(stopReasonOf(ctx), f.timeout, f.memory))}
	}
	var pairs []diffPair
	if f.git != "" {
		if pairs, err = gitPairs(cmd, f.git, args); err != nil {
			return err
		}
	} else {
		if len(args) != 2 {
			return &exitError{code: exitUsage, err: fmt.Errorf("diff: want OLD and NEW files, or --git REV [FILE...]")}
		}
		var p diffPair
		p.oldName, p.newName = displayPath(args[0]), displayPath(args[1])
		if p.oldSrc, err = readSpecContext(ctx, args[0]); err == nil {
			p.newSrc, err = readSpecContext(ctx, args[1])
		}
		if err != nil && ctx.Err() != nil {
			return stopped()
		}
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		pairs = append(pairs, p)
	}
	opts := diff.Options{Map: rename, MaxNodes: f.maxNodes, MaxSetStates: f.maxSetStates, NoChecks: f.noChecks,
		Verify: verify.Options{MaxStates: f.maxStates, Workers: f.workers, MemoryBudget: mem}}
	code := exitHolds
	for i, p := range pairs {
		var oldM, newM *spec.Model
		oldM, err = spec.ParseFile(p.oldName, p.oldSrc, defs)
		if err == nil {
			newM, err = spec.ParseFile(p.newName, p.newSrc, defs)
		}
		if err != nil && ctx.Err() != nil {
			return stopped()
		}
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		res, err := diff.Compare(ctx, oldM, newM, opts)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if i > 0 && f.format != "json" {
			fmt.Fprintln(cmd.OutOrStdout())
		}
		names := diff.Names{Old: p.oldName, New: p.newName}
		switch f.format {
		case "json":
			err = res.JSON(cmd.OutOrStdout(), names)
		case "markdown":
			err = res.Markdown(cmd.OutOrStdout(), names)
		default:
			err = res.Text(cmd.OutOrStdout(), names)
		}
		if err != nil {
			return err
		}
		switch {
		case res.Differ():
			code = exitViolated
		case res.Incomplete() && code == exitHolds:
			code = exitIncomplete
		}
	}
	if code != exitHolds {
		return &exitError{code: code}
	}
	return nil
}

// gitPairs returns, for each .wrap file named by args (files, or
// directories searched with git ls-files; none: the whole repository),
// the file at rev and in the working tree.
func gitPairs(cmd *cobra.Command, rev string, args []string) ([]diffPair, error) {
	git := func(gitArgs ...string) ([]byte, error) {
		c := exec.Command("git", gitArgs...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			// The arguments and git's message may quote file names.
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("git %s: %s", report.Escape(strings.Join(gitArgs, " ")), report.Escape(msg))}
		}
		return out, nil
	}
	if strings.HasPrefix(rev, "-") {
		// git would read it as an option (git show --output=FILE writes a file).
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("--git %s: a revision does not start with '-'", report.Escape(rev))}
	}
	var files []string
	// -z: names as they are, NUL-terminated; without it git quotes a name
	// with a byte outside printable ASCII ("sp\303\251c.wrap").
	ls := []string{"ls-files", "-z", "--"}
	lsArgs := append(slices.Clone(ls), "*.wrap")
	if len(args) > 0 {
		lsArgs = slices.Clone(ls)
		for _, a := range args {
			if st, err := os.Stat(a); err == nil && st.IsDir() {
				lsArgs = append(lsArgs, filepath.ToSlash(filepath.Join(a, "*.wrap")))
			} else {
				files = append(files, a)
			}
		}
	}
	if len(lsArgs) > len(ls) || len(args) == 0 {
		out, err := git(lsArgs...)
		if err != nil {
			return nil, err
		}
		for _, name := range strings.Split(string(out), "\x00") {
			if name != "" {
				files = append(files, name)
			}
		}
	}
	var pairs []diffPair
	for _, file := range files {
		newSrc, err := readSpec(file)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		// ./ makes git read the path relative to the working directory.
		rel := file
		if filepath.IsAbs(file) {
			if wd, err := os.Getwd(); err == nil {
				if r, err := filepath.Rel(wd, file); err == nil {
					rel = r
				}
			}
		}
		oldSrc, err := git("show", rev+":./"+filepath.ToSlash(rel))
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: not in %s, skipped\n", displayPath(file), report.Escape(rev))
			continue
		}
		name := displayPath(file)
		pairs = append(pairs, diffPair{oldName: name + "@" + report.Escape(rev), newName: name, oldSrc: oldSrc, newSrc: newSrc})
	}
	if len(pairs) == 0 {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("diff --git %s: no .wrap file to compare", report.Escape(rev))}
	}
	return pairs, nil
}
