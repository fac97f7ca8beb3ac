package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/mcp"
)

func newMCPCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "run the Model Context Protocol server for AI agents (stdio)",
		Long: `mcp runs a Model Context Protocol server on stdin and stdout, so that AI
agents can write and check wrapper specs: the tools check (the same JSON as
check --format json), explain, prob (the same JSON as prob --format json),
vet, fmt, ltl, replay and examples, and the language
reference, the patterns page, the agents' guide and the examples as
resources. docs/agents.md says how to register it in the common agent hosts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := mcp.Serve(ctx, mcp.Options{Version: version}, cmd.InOrStdin(), cmd.OutOrStdout()); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			return nil
		},
	}
}
