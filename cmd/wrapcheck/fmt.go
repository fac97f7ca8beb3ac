package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

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
			err := eachFile(context.Background(), cmd, args, func(path string, src []byte, f *syntax.File) error {
				out := syntax.Format(f)
				switch {
				case list:
					if !bytes.Equal(out, src) {
						fmt.Fprintln(cmd.OutOrStdout(), displayPath(path))
						differ = true
					}
				case write:
					if !bytes.Equal(out, src) {
						return writeAtomic(path, out, writeAll)
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

// writeAtomic replaces the contents of the file at path with data so that
// the file is never left truncated or half-written (a full disk, a
// crash): data goes to a temporary file in the same directory, which is
// synced, given the original's permissions and renamed over it. A
// symbolic link is followed, and the file it points to replaced. On an
// error the original is untouched and the temporary file removed. write
// writes the data to the temporary file (a parameter for the tests).
func writeAtomic(path string, data []byte, write func(f *os.File, data []byte) error) error {
	fail := func(err error) error {
		return fmt.Errorf("%s: not rewritten: %w", displayPath(path), err)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fail(err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return fail(err)
	}
	name := tmp.Name()
	err = write(tmp, data)
	if err == nil {
		err = tmp.Chmod(fi.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, target)
	}
	if err != nil {
		os.Remove(name)
		return fail(err)
	}
	return nil
}

func writeAll(f *os.File, data []byte) error {
	_, err := f.Write(data)
	return err
}
