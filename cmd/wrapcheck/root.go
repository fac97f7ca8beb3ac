package main

import (
	"github.com/spf13/cobra"
)

// subcommand is a subcommand of the root and its constructor.
type subcommand struct {
	name string
	make func() *cobra.Command
}

// subcommands are the root's subcommands, in the order help lists them.
func subcommands() []subcommand {
	return []subcommand{
		{"check", newCheckCmd}, {"vet", newVetCmd}, {"fmt", newFmtCmd}, {"version", newVersionCmd},
		{"ltl", newLTLCmd}, {"graph", newGraphCmd}, {"replay", newReplayCmd}, {"guard", newGuardCmd}, {"diff", newDiffCmd},
		{"explain", newExplainCmd}, {"eval", newEvalCmd}, {"lsp", newLSPCmd}, {"mcp", newMCPCmd}, {"ui", newUICmd},
		{"simulate", newSimulateCmd}, {"testgen", newTestgenCmd}, {"prob", newProbCmd}, {"worker", newWorkerCmd}, {"cache", newCacheCmd},
	}
}

// newRootCmd returns the root command. When only names a subcommand, the
// root holds that one alone: building every subcommand with its flags
// costs each process about 100 µs and 95 KB (pflag formats the default of
// every string-array flag through a csv.Writer of 4 KiB), and a command
// line that starts with a subcommand's name runs that subcommand whatever
// the others are. Any other command line (help, completion, a flag, a
// mistyped name) gets all of them.
func newRootCmd(only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "wrapcheck",
		Short: "an explicit-state model checker for wrapper specifications",
		Long: `wrapcheck checks the control logic around untrusted agents (LLM planners,
executors and verifiers, human approvers, tools). It explores every reachable
state of a .wrap spec, in which every agent may answer anything of its
declared type, and prints the shortest counterexample to any violated check.

Exit codes: 0 every check holds, 1 a violation was found, 2 the spec or the
command line is wrong, 3 the search stopped early with no violation found.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	subs := subcommands()
	for _, s := range subs {
		if s.name == only {
			root.AddCommand(s.make())
			return root
		}
	}
	for _, s := range subs {
		root.AddCommand(s.make())
	}
	return root
}
