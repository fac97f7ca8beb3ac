package main

import (
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
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
	root.AddCommand(newCheckCmd(), newVetCmd(), newFmtCmd(), newVersionCmd(), newLTLCmd(), newGraphCmd(), newReplayCmd(), newDiffCmd(), newExplainCmd(), newLSPCmd(), newMCPCmd(), newUICmd(), newSimulateCmd(), newWorkerCmd(), newCacheCmd())
	return root
}
