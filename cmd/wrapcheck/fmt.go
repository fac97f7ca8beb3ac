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
With -w it rewrites the files in place instead; with -l (or --check) it lists
the files whose layout differs and exits 1 when there is one.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			differ := false
			err := eachFile(cmd, args, func(path string, src []byte, f *syntax.File) error {
				out := syntax.Format(f)
				switch {
				case list:
					if !bytes.Equal(out, src) {
						fmt.Fprintln(cmd.OutOrStdout(), displayPath(path))
						differ = true
					}
				case write:
					if !bytes.Equal(out, src) {
						return os.WriteFile(path, out, 0o644)
					}
				default:
					_, err := cmd.OutOrStdout().Write(out)
					return err
				}
				return nil
			})
			if err == nil && differ {
				return &exitError{code: exitViolated}
			}
			return err
		},
	}
	cmd.Flags().BoolVarP(&write, "write", "w", false, "write the result to the file instead of stdout")
	cmd.Flags().BoolVarP(&list, "list", "l", false, "list files whose layout differs from fmt's; exit 1 when there is one")
	cmd.Flags().BoolVar(&list, "check", false, "the same as -l")
	return cmd
}
