package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/native"
)

// divisionSeeds divide by zero, by constants and by variables that can be
// zero, in guards, actions, invariants and lets: the generated code must
// fail where the closures fail, and only there.
var divisionSeeds = []string{
	`spec DivVar
var a: -3..3 = -3
var b: 0..2
action s when a < 3 { a := a + 1 }
action t when b < 2 { b := b + 1 }
invariant Q: a / (b + 1) >= -3 and a % (b + 1) > -3
invariant R: b == 0 or a / b <= 3
`,
	`spec DivGuard
var a: 0..3
action s when a < 3 { a := a + 1 }
action t when 6 / (3 - a) > 1 { a := 0 }
`,
	`spec ModConst
var a: -5..5 = -5
action s when a < 5 { a := a + 1 }
invariant M: a % 3 > -3 and a / -2 <= 3 and (a % 1) == 0
invariant Z: a < 5 or a % 0 == 0
`,
}

// FuzzCompiledAgrees checks that check --compile gives the interpreter's
// outcome on any spec, with 1 to 3 workers and a bound on the states:
// the exit code and the whole JSON report (verdict, violation kind and
// trace, counts) and standard error, but the timings. A spec the
// generated code cannot build for is a failure (the interpreter has no
// build to fail). Its seeds are the literal divisions by zero of issue 34
// (testdata/compile), divisionSeeds and random specs of internal/gen; they
// are built into one binary, so the plain go test run costs one go build
// (and one more for each stored input of another spec). Under -fuzz a
// spec that is not a seed would need a go build of its own, longer than
// the 10 s the fuzzing engine gives an input: it is skipped there (the
// engine still explores the workers and bounds on the seeds), and
// machine's FuzzGenerateNative type-checks the code of every mutated
// spec instead.
func FuzzCompiledAgrees(f *testing.F) {
	goTool, gocache := needGoBuild(f)
	var seeds [][]byte
	files, err := filepath.Glob("testdata/compile/*.wrap")
	if err != nil || len(files) < 2 {
		f.Fatalf("testdata/compile: %v (%d files)", err, len(files))
	}
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, src)
	}
	for _, s := range divisionSeeds {
		seeds = append(seeds, []byte(s))
	}
	shapes := []gen.Config{{Shape: gen.Mixed}, {Shape: gen.Symmetric, Failing: true}, {Shape: gen.Exact}}
	for i := range 9 {
		c := shapes[i%len(shapes)]
		c.Index = i
		seeds = append(seeds, []byte(gen.Generate(rand.New(rand.NewPCG(uint64(i), 34)), c).Source))
	}
	dir := f.TempDir()
	f.Setenv("GOCACHE", gocache)
	f.Setenv(native.DirEnv, filepath.Join(dir, "cache"))
	// Each input in a file named by its content: the generated code names
	// the file in its error sites, so a seed's code in the fuzz function is
	// the code built into the seeds' binary.
	specs := filepath.Join(dir, "specs")
	if err := os.Mkdir(specs, 0o755); err != nil {
		f.Fatal(err)
	}
	write := func(src []byte) (string, error) {
		h := sha256.Sum256(src)
		p := filepath.Join(specs, hex.EncodeToString(h[:8])+".wrap")
		return p, os.WriteFile(p, src, 0o644)
	}
	// One binary for every seed.
	var paths []string
	for _, src := range seeds {
		f.Add(src, uint8(0), uint16(4000))
		p, err := write(src)
		if err != nil {
			f.Fatal(err)
		}
		paths = append(paths, p)
	}
	srcs := nativeSources(context.Background(), &cobra.Command{}, paths, nil)
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
	}
	var log bytes.Buffer
	seedBin, release, err := nativeBinary(context.Background(), goTool, srcs, &log)
	if err != nil {
		f.Fatalf("the seeds' binary: %v\n%s", err, log.String())
	}
	defer release()
	norm := func(s string) string { return secondsRE.ReplaceAllString(s, "${1}T") }
	fuzzing := false
	if fl := flag.Lookup("test.fuzzworker"); fl != nil {
		fuzzing = fl.Value.String() == "true"
	}
	f.Fuzz(func(t *testing.T, src []byte, workers uint8, maxStates uint16) {
		path, err := write(src)
		if err != nil {
			t.Fatal(err)
		}
		bin := seedBin
		srcs := nativeSources(context.Background(), &cobra.Command{}, []string{path}, nil)
		if len(srcs) == 0 {
			bin = "" // no model: both report the same error, without a build
		} else if !slices.Contains(keys, srcs[0].Key) {
			if fuzzing {
				t.Skip("a go build of its own takes longer than the fuzzing engine allows an input")
			}
			var log bytes.Buffer
			b, release, err := nativeBinary(context.Background(), goTool, srcs, &log)
			if err != nil {
				t.Fatalf("check --compile cannot build the code of this spec: %v\n%s", err, log.String())
			}
			defer release()
			bin = b
		}
		// Bounded: the interpreter and the binary stop at the same state.
		args := []string{"check", "--workers", strconv.Itoa(1 + int(workers)%3), "--format", "json", "--max-states", strconv.Itoa(1 + int(maxStates)%4000), "--progress", "off", path}
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if bin == "" {
			return
		}
		ncode, nout, stats, nerr := runNative(t, bin, args)
		if stats == "" || strings.HasPrefix(stats, "wrapcheck: native code for 0 ") {
			t.Errorf("no unit runs generated code: %q", stats+nerr)
		}
		if strings.Contains(nerr, "native self-check") {
			t.Errorf("the generated code differs from the closures: %s", nerr)
		}
		if code != ncode {
			t.Errorf("exit code %d, compiled %d\nstderr %s\ncompiled stderr %s", code, ncode, errb.String(), nerr)
		}
		if d := cmp.Diff(norm(out.String()), norm(nout)); d != "" {
			t.Errorf("stdout (-interpreter +compiled):\n%s", d)
		}
		if d := cmp.Diff(norm(errb.String()), norm(nerr)); d != "" {
			t.Errorf("stderr (-interpreter +compiled):\n%s", d)
		}
		if !strings.HasPrefix(out.String(), "{") && code != exitUsage {
			t.Errorf("no JSON report: %q", out.String())
		}
	})
}
