package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func newFmtCmd() *cobra.Command {
	var write, list bool
	cmd := &cobra.Command{
		Use:   "fmt [-w] FILE...",
		Short: "print specs in the canonical layout",
		Long: `fmt prints each FILE in wrapcheck's one canonical layout, comments kept.
With -w it rewrites the files in place instead; with -l it lists the files
whose layout differs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
				out := syntax.Format(f)
				switch {
				case list:
					if !bytes.Equal(out, src) {
						fmt.Fprintln(cmd.OutOrStdout(), displayPath(path))
					}
				case write:
					if !bytes.Equal(out, src) {
						if err := os.WriteFile(path, out, 0o644); err != nil {
							fmt.Fprintln(cmd.ErrOrStderr(), err)
							code = exitUsage
						}
					}
				default:
					cmd.OutOrStdout().Write(out)
				}
			}
			if code != exitHolds {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&write, "write", "w", false, "write the result to the file instead of stdout")
	cmd.Flags().BoolVarP(&list, "list", "l", false, "list files whose layout differs from fmt's")
	return cmd
}
