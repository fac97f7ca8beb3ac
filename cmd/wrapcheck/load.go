package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// displayPath returns path relative to the working directory, with
// forward slashes, so that positions print the same on every OS, and with
// its control characters escaped (report.Escape), so that no output line
// made with it can be forged by a file name. A relative path that starts
// (after spaces) with what starts a CI workflow command, "::" or "##",
// gets "./" before it: a line that starts with it (an error's position,
// fmt -l) is not one.
func displayPath(path string) string {
	p := slashPath(path)
	if t := strings.TrimLeft(p, " \t"); strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##") {
		p = "./" + p
	}
	return report.Escape(p)
}

// slashPath is displayPath without the escaping.
func slashPath(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return filepath.ToSlash(path)
}

// parseDefines turns -D NAME=VALUE flags into spec options. Integers
// are exact: a value past int64 is kept (as a BigDefine). A name given
// twice is refused, whatever the values.
func parseDefines(defs []string) (spec.Options, error) {
	var opts spec.Options
	if len(defs) == 0 {
		return opts, nil
	}
	opts.Defines = make(map[string]int64, len(defs))
	for _, d := range defs {
		name, val, ok := strings.Cut(d, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return opts, fmt.Errorf("-D %s: want NAME=VALUE", shorten(d))
		}
		val = strings.TrimSpace(val)
		_, dupSmall := opts.Defines[name]
		_, dupBig := opts.BigDefines[name]
		if dupSmall || dupBig {
			return opts, fmt.Errorf("-D %s: given twice (give each constant once)", report.Escape(name))
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err == nil {
			opts.Defines[name] = n
			continue
		}
		b, ok := new(big.Int).SetString(val, 10)
		if !ok || len(val) > syntax.MaxIntDigits+1 {
			return opts, fmt.Errorf("-D %s: %s is not an integer", shorten(d), clip(val))
		}
		if opts.BigDefines == nil {
			opts.BigDefines = map[string]*big.Int{}
		}
		opts.BigDefines[name] = b
	}
	return opts, nil
}

// clip returns s quoted, its middle elided when it is longer than 40
// bytes, for an error message that echoes user input.
func clip(s string) string {
	return strconv.Quote(elide(s))
}

// shorten returns s escaped (report.Escape), its middle elided when it is
// longer than 40 bytes.
func shorten(s string) string {
	return report.Escape(elide(s))
}

// elide replaces the middle of a string longer than 40 bytes by "…".
func elide(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:20]+"…"+s[len(s)-20:], "?")
	}
	return s
}

// loadModel reads, parses, checks and lowers the spec at path under ctx
// (spec.Options.Context): once ctx is done, it stops soon after with an
// error wrapping ctx's. Any other error is a usage error (exit 2).
func loadModel(ctx context.Context, path string, defines []string) (*spec.Model, error) {
	opts, err := parseDefines(defines)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	opts.Context = ctx
	src, err := readSpecContext(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // stopped: the caller says why
		}
		return nil, &exitError{code: exitUsage, err: err}
	}
	m, err := spec.ParseFile(displayPath(path), src, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err // stopped: the caller says why
		}
		return nil, &exitError{code: exitUsage, err: err}
	}
	return m, nil
}

// maxSpecBytes is the largest spec file wrapcheck reads (16 MiB): a
// larger one, or a device such as /dev/zero, is refused before it fills
// the memory.
const maxSpecBytes = 16 << 20

// readSpec is readSpecContext without a limit.
func readSpec(path string) ([]byte, error) {
	return readSpecContext(context.Background(), path)
}

// readSpecContext reads the spec file at path, refusing one longer than
// maxSpecBytes: a regular file by its size, anything else (a pipe, a
// device) after reading one byte more than the limit. Nothing it does
// waits past ctx: the file is opened without waiting for a writer
// (openSpecFile), a named pipe that no process writes to is refused, and
// a read that waits for data on a pipe ends once ctx is done, with ctx's
// error.
func readSpecContext(ctx context.Context, path string) ([]byte, error) {
	f, err := openSpecFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLong := fmt.Errorf("%s: longer than %d MiB, the limit for a spec file", displayPath(path), maxSpecBytes>>20)
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() && fi.Size() > maxSpecBytes {
		return nil, tooLong
	}
	if !fi.Mode().IsRegular() {
		// A pipe's reads end at the deadline (a device that cannot be
		// polled ignores it: the command's own limit then ends it).
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
		defer stop()
	}
	src, err := io.ReadAll(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("%s: %w", displayPath(path), cerr)
		}
		return nil, err
	}
	if len(src) > maxSpecBytes {
		return nil, tooLong
	}
	if len(src) == 0 && fi.Mode()&os.ModeNamedPipe != 0 {
		return nil, fmt.Errorf("%s: a named pipe (FIFO) that no process writes to: nothing to read", displayPath(path))
	}
	return src, nil
}

// parseSize parses a memory size such as 512MiB, 4GiB, 2G or 1000000.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	}
	arg := s
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || n < 0 || math.IsNaN(n) {
		return 0, fmt.Errorf("--memory %s: want a size such as 512MiB or 4GiB (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", clip(arg))
	}
	if b := n * float64(mult); b >= math.MaxInt64 {
		return 0, fmt.Errorf("--memory %s: out of range (at most 8 EiB)", clip(arg))
	}
	return int64(n * float64(mult)), nil
}

// eachFile parses every file in paths and calls do with its source and
// syntax tree. A file that cannot be read or parsed, or for which do
// fails, is reported on stderr and makes the command exit 2 after the
// other files were handled.
//
// Once ctx is done, eachFile returns ctx's error (unprinted) at once.
func eachFile(ctx context.Context, cmd *cobra.Command, paths []string, do func(path string, src []byte, f *syntax.File) error) error {
	failed := false
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := readSpecContext(ctx, path)
		if err == nil {
			var f *syntax.File
			if f, err = syntax.Parse(displayPath(path), src); err == nil {
				err = do(path, src, f)
			}
		}
		if cerr := ctx.Err(); err != nil && cerr != nil {
			return cerr // stopped: the caller says why
		}
		if err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), errorText(err))
			failed = true
		}
	}
	if failed {
		return &exitError{code: exitUsage}
	}
	return nil
}
