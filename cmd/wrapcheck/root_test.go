package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRootOneSubcommand checks that a root built with one subcommand
// (newRootCmd(name), what run does when the command line starts with
// that name) behaves as the root with all of them: the same help, errors
// and output for each subcommand, and that each entry of the table names
// the command its constructor makes.
func TestRootOneSubcommand(t *testing.T) {
	exec := func(root string, args []string) string {
		r := newRootCmd(root)
		var out, errb bytes.Buffer
		r.SetArgs(args)
		r.SetContext(context.WithValue(context.Background(), argvKey{}, args))
		r.SetOut(&out)
		r.SetErr(&errb)
		err := r.Execute()
		return secondsRE.ReplaceAllString(fmt.Sprintf("stdout:\n%s\nstderr:\n%s\nerror: %v", out.String(), errb.String(), err), "${1}T")
	}
	for _, s := range subcommands() {
		if got := s.make().Name(); got != s.name {
			t.Errorf("the table's %q makes the command %q", s.name, got)
		}
		for _, args := range [][]string{
			{s.name, "--help"},
			{s.name, "--no-such-flag"},
			{s.name, "help"},
		} {
			if d := cmp.Diff(exec("", args), exec(s.name, args)); d != "" {
				t.Errorf("%q: (-all subcommands +one):\n%s", args, d)
			}
		}
	}
	for _, args := range [][]string{{"version"}, {"cache", "list", "--help"}, {"check", "../../examples/classic/diehard.wrap"}, {"fmt", "../../examples/classic/diehard.wrap"}} {
		if d := cmp.Diff(exec("", args), exec(args[0], args)); d != "" {
			t.Errorf("%q: (-all subcommands +one):\n%s", args, d)
		}
	}
}

// BenchmarkRootCmd times building the root with every subcommand (a
// command line that names none) and with the one a command line names.
func BenchmarkRootCmd(b *testing.B) {
	for _, only := range []string{"", "check", "version"} {
		b.Run("only="+only, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				newRootCmd(only)
			}
		})
	}
}
