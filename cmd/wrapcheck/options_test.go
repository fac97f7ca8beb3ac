package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wrapcheck/wrapcheck/verify"
)

// TestCheckDefaults: check's flags left at their defaults give
// verify.Options{}, so a library caller that fills nothing gets what the
// command line does.
func TestCheckDefaults(t *testing.T) {
	cmd := newCheckCmd()
	zero := map[string]string{
		"workers": "0", "max-states": "0", "max-depth": "0", "no-deadlock": "false", "continue": "false",
		"only": "[]", "no-symmetry": "false", "no-por": "false", "hash-compact": "false", "memory": "",
	}
	for name, want := range zero {
		fl := cmd.Flags().Lookup(name)
		if fl == nil {
			t.Errorf("check has no --%s", name)
			continue
		}
		if fl.DefValue != want {
			t.Errorf("--%s defaults to %q, want %q (the zero of its option)", name, fl.DefValue, want)
		}
	}
	mem, err := parseSize(cmd.Flags().Lookup("memory").DefValue)
	if err != nil || mem != 0 {
		t.Errorf("--memory's default is %d bytes (%v), want 0", mem, err)
	}
	if diff := cmp.Diff(verify.Options{}, checkFlags{}.options(mem), cmpopts.IgnoreUnexported(verify.Options{})); diff != "" {
		t.Errorf("options of the default flags (-zero +defaults):\n%s", diff)
	}
}
