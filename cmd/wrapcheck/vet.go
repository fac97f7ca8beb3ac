package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func newVetCmd() *cobra.Command {
	var (
		defines []string
		strict  bool
	)
	cmd := &cobra.Command{
		Use:   "vet FILE...",
		Short: "report static errors and suspicious constructs without exploring states",
		Long: `vet parses and checks each FILE and reports every static error (exit 2) and
warnings: an agent never asked, an assume no answer can satisfy for some
arguments, unused variables, functions and types, a terminal that can never
hold. Warnings exit 0 unless --strict.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defs, err := parseDefines(defines)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			code := exitHolds
			for _, path := range args {
				src, err := os.ReadFile(path)
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					code = exitUsage
					continue
				}
				f, err := syntax.Parse(displayPath(path), src)
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					code = exitUsage
					continue
				}
				m, err := spec.Check(f, spec.Options{Defines: defs})
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					code = exitUsage
					continue
				}
				ws := spec.Vet(f, m)
				for _, w := range ws {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: warning: %s\n", w.Pos, w.Msg)
				}
				if strict && len(ws) > 0 && code == exitHolds {
					code = exitViolated
				}
			}
			if code != exitHolds {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 when there are warnings")
	return cmd
}
