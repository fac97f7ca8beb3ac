package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func newVetCmd() *cobra.Command {
	var (
		defines []string
		strict  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "vet FILE...",
		Short: "report static errors and suspicious constructs without exploring states",
		Long: `vet parses and checks each FILE and reports every static error (exit 2) and
warnings: an agent never asked, an assume that no answer satisfies (for some
or for all arguments), unused variables, functions and types, a terminal that can never
hold. Warnings exit 0 unless --strict. --timeout, SIGINT and SIGTERM stop it
with exit 3.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var out sync.Mutex
			return limited("vet", timeout, &out, func(ctx context.Context) error {
				opts, err := parseDefines(defines)
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				warned := false
				opts.Context = ctx // the spec's constant folding and fn expansion stop at the limit too
				err = eachFile(ctx, cmd, args, func(_ string, _ []byte, f *syntax.File) error {
					m, err := spec.Check(f, opts)
					if err != nil {
						return err
					}
					ws := spec.Vet(f, m)
					out.Lock()
					defer out.Unlock()
					for _, w := range ws {
						fmt.Fprintf(cmd.ErrOrStderr(), "%s: warning: %s\n", report.Escape(w.Pos.String()), report.Escape(w.Msg))
						warned = true
					}
					return nil
				})
				if err == nil && strict && warned {
					return &exitError{code: exitViolated}
				}
				return err
			})
		},
	}
	cmd.Flags().StringArrayVarP(&defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 when there are warnings")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "stop after this long, e.g. 30s (0: no limit): exit 3")
	return cmd
}
