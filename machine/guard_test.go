package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// TestEqConstGuard checks runAction's inline guard test against the
// guard's closure on the first reachable states of every example: where
// an action keeps (eqOff, eqK), the closure never fails when
// mem[eqOff] != eqK and is then false, and with eqOnly it is exactly
// mem[eqOff] == eqK.
func TestEqConstGuard(t *testing.T) {
	files, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	fast, only, checked := 0, 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.Base(file), src, spec.Options{})
		if err != nil {
			continue // an example that needs defines, or one of errors
		}
		p, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, ca := range p.actions {
			if ca.eqOff >= 0 {
				fast++
				if ca.eqOnly {
					only++
				}
			}
		}
		mach := p.NewMachine()
		seen := map[string]bool{}
		var queue []State
		add := func(s State) {
			k := fmt.Sprint(s)
			if !seen[k] && len(seen) < 2000 {
				seen[k] = true
				queue = append(queue, append(State(nil), s...))
			}
		}
		_ = mach.Init(func(_ int, s State) { add(s) })
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			mach.Load(s)
			for a := range p.actions {
				ca := &p.actions[a]
				if ca.eqOff < 0 {
					continue
				}
				mach.action = a
				g := ca.guard(mach)
				failed := mach.err != nil
				mach.err = nil
				eq := mach.mem[ca.eqOff] == ca.eqK
				checked++
				if !eq && (failed || g != 0) {
					t.Fatalf("%s: action %d: guard %d (failed %v) where mem[%d] = %d != %d", file, a, g, failed, ca.eqOff, mach.mem[ca.eqOff], ca.eqK)
				}
				if ca.eqOnly && (failed || (g != 0) != eq) {
					t.Fatalf("%s: action %d: guard %d (failed %v), inline test %v", file, a, g, failed, eq)
				}
			}
			_ = mach.Successors(s, func(_, _ int, t State) { add(t) })
		}
	}
	if fast == 0 || only == 0 || only == fast || checked == 0 {
		t.Fatalf("inline guards: %d (%d exact), %d checks: want both shapes checked", fast, only, checked)
	}
}
