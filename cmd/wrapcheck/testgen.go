package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/diff"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/testgen"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// testgenFlags are the flags of `wrapcheck testgen`, copied into
// testgen.Options.
type testgenFlags struct {
	defines   []string
	maxTests  int
	maxStates int64
	out       string
	since     string
}

func newTestgenCmd() *cobra.Command {
	var f testgenFlags
	cmd := &cobra.Command{
		Use:   "testgen FILE",
		Short: "generate a small set of shortest tests that cover what the spec lets the wrapper do",
		Long: `testgen explores the spec in FILE and picks a small set of shortest runs
that together cover every goal a run can meet: every action, every arm of
every if and match (the else of an if without one too), every class of
every agent's answer (each boolean, each enum member, both ends of a range,
the empty and the full set, field by field in a record), every integer
comparison of a guard at its edge, every conjunct of a guard as the only
false one, every antecedent of an implies invariant or property, every
disjunct of the terminal condition. It prints the coverage report: the
tests, then each goal with the test that covers it, or why no run can.

With --out DIR it writes each test into DIR/tNN/: trace.itf.json (the run
in the Informal Trace Format), agents.json (every agent call of the run in
order, with the answer to give: the fixture of a harness that drives the
real wrapper with its agents scripted) and run.jsonl (the run as replay
reads it: what the harness's recording should match).

With --changed-since REV it emits only the tests whose behaviour changed
since the git revision REV: the tests of the spec as it is now that FILE
as it was at REV (git show REV:FILE) does not allow, as diff observes
runs (the actions and the shared variables); the report says which.

Exit codes: 0 every reachable goal is covered, 2 the spec or the command
line is wrong, 3 --max-tests or --max-states left goals uncovered or
undecided.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTestgen(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.IntVar(&f.maxTests, "max-tests", 0, "at most this many tests (0: as many as the goals need)")
	fl.Int64Var(&f.maxStates, "max-states", testgen.DefaultMaxStates, "explore at most this many states")
	fl.StringVar(&f.out, "out", "", "write the tests into this directory")
	fl.StringVar(&f.since, "changed-since", "", "emit only the tests whose behaviour FILE at this git revision does not have")
	return cmd
}

func runTestgen(cmd *cobra.Command, path string, f testgenFlags) error {
	usage := func(err error) error { return &exitError{code: exitUsage, err: err} }
	if f.maxTests < 0 || f.maxStates < 1 {
		return usage(fmt.Errorf("--max-tests must not be negative, and --max-states must be at least 1"))
	}
	m, _, err := loadForCheck(cmd, path, f.defines)
	if err != nil {
		return err
	}
	var src []byte
	if path != "-" {
		src, _ = readSpec(path)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := testgen.Generate(ctx, m, testgen.Options{MaxTests: f.maxTests, MaxStates: f.maxStates, Source: src})
	if err != nil {
		return usage(err)
	}
	emit := res
	var changedLine string
	if f.since != "" {
		if path == "-" {
			return usage(fmt.Errorf("--changed-since: the spec must be a file, not stdin"))
		}
		pairs, err := gitPairs(cmd, f.since, []string{path})
		if err != nil {
			return err
		}
		defs, err := parseDefines(f.defines)
		if err != nil {
			return usage(err)
		}
		old, err := spec.ParseFile(pairs[0].oldName, pairs[0].oldSrc, defs)
		if err != nil {
			return usage(err)
		}
		kept := *res
		kept.Tests = nil
		var names []string
		for _, t := range res.Tests {
			same, err := diff.Follows(old, m, t.Trace, nil)
			if err != nil {
				return usage(err)
			}
			if !same {
				kept.Tests = append(kept.Tests, t)
				names = append(names, t.Name)
			}
		}
		emit = &kept
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		changedLine = fmt.Sprintf("\nchanged since %s: %d of %d tests: %s (the others %s allows too)\n",
			report.Escape(f.since), len(names), len(res.Tests), list, pairs[0].oldName)
		if len(names) == 0 {
			// No test shows the change: diff's shortest run of the spec
			// that the old one does not allow is the test.
			d, err := diff.Compare(ctx, old, m, diff.Options{NoChecks: true})
			if err != nil {
				return usage(err)
			}
			if tr := d.NewOnly.Trace; tr != nil {
				kept.Tests = append(kept.Tests, &testgen.Test{Name: "d01", Trace: tr.Steps})
				changedLine += fmt.Sprintf("d01: diff's shortest run that %s does not allow (%s)\n", pairs[0].oldName, verdict.Plural(len(tr.Steps)-1, "step"))
			}
		}
	}
	if f.out != "" {
		if err := emit.WriteDir(f.out, m); err != nil {
			return usage(err)
		}
	}
	if err := res.Text(cmd.OutOrStdout(), m); err != nil {
		return err
	}
	if changedLine != "" {
		if _, err := fmt.Fprint(cmd.OutOrStdout(), changedLine); err != nil {
			return err
		}
	}
	covered, reachable := res.Covered()
	if covered < reachable || !res.Complete {
		return &exitError{code: exitIncomplete}
	}
	return nil
}
