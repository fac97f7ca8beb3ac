package reduce

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestSubgroups checks, by brute force on the small examples with
// symmetric types, the canonical forms of the subgroups of [Group]: with
// the first identity of every type pinned, the canonical form is constant
// on the orbits of the stabiliser, lies in the orbit and keeps identity 0
// in place; with a type left out, that type is never permuted. It also
// checks Canon.Swap against the group action.
func TestSubgroups(t *testing.T) {
	forExamples(t, func(t *testing.T, m *spec.Model) {
		full, err := newCanon(m, Group{})
		if err != nil || full == nil {
			return
		}
		states, ok := reachable(t, m, 5000, full)
		if !ok {
			t.Skip("too many states")
		}
		pinned, err := newCanon(m, Group{Fixed: full.types})
		if err != nil {
			t.Fatal(err)
		}
		fixes0 := func(fwd [][]int32) bool {
			for _, p := range fwd {
				if p[0] != 0 {
					return false
				}
			}
			return true
		}
		checkSubgroup(t, "pinned", full, pinned, states, fixes0)
		off, err := newCanon(m, Group{Off: full.types[:1]})
		if err != nil {
			t.Fatal(err)
		}
		identity0 := func(fwd [][]int32) bool {
			for i, v := range fwd[0] {
				if int(v) != i {
					return false
				}
			}
			return true
		}
		if off != nil {
			checkSubgroup(t, "off", full, off, states, identity0)
		}
		for _, c := range []*canon{full, pinned} {
			perm := make([][]int32, len(c.sizes))
			for t, n := range c.sizes {
				perm[t] = make([]int32, n)
			}
			k := &Canon{c}
			for _, s := range states[:min(len(states), 300)] {
				cs := slices.Clone(s)
				k.Perm(cs, perm)
				if got := full.permute(s, perm); !slices.Equal(got, cs) {
					t.Fatalf("Perm(%v) = %v with π = %v, but π(s) = %v", s, cs, perm, got)
				}
			}
		}
		tr := &Canon{full}
		dst := make([]int64, len(m.Slots))
		for ti, typ := range full.types {
			fwd := make([][]int32, len(full.types))
			for k, n := range full.sizes {
				fwd[k] = make([]int32, n)
				for i := range fwd[k] {
					fwd[k][i] = int32(i)
				}
			}
			fwd[ti][0], fwd[ti][1] = 1, 0
			for _, s := range states[:min(len(states), 200)] {
				if !tr.Swap(dst, s, typ, 0, 1) {
					t.Fatalf("Swap refused type %s", typ.Name)
				}
				if want := full.permute(s, fwd); !slices.Equal(dst, want) {
					t.Fatalf("Swap(%v, %s, 0, 1) = %v, want %v", s, typ.Name, dst, want)
				}
			}
		}
	})
}

// checkSubgroup checks that sub canonicalises exactly for the subgroup
// of full's group whose elements satisfy in.
func checkSubgroup(t *testing.T, name string, full, sub *canon, states [][]int64, in func([][]int32) bool) {
	t.Helper()
	bad := 0
	for _, s := range states {
		cs := slices.Clone(s)
		sub.canonicalize(cs)
		inOrbit := false
		full.group(func(fwd [][]int32) {
			if !in(fwd) || bad >= 3 {
				return
			}
			p := full.permute(s, fwd)
			inOrbit = inOrbit || slices.Equal(p, cs)
			sub.canonicalize(p)
			if !slices.Equal(p, cs) {
				bad++
				t.Errorf("%s: canonical forms differ within an orbit: s=%v π=%v: %v vs %v", name, s, fmt.Sprint(fwd), p, cs)
			}
		})
		if !inOrbit && bad < 3 {
			bad++
			t.Errorf("%s: canonical form %v of %v is not in its orbit", name, cs, s)
		}
	}
}

// TestCanonPermRandom checks Canon.Perm on the reachable states of random
// specs, whose identities stored in arrays indexed by their own type leave
// ties that only the enumeration of candidates resolves.
func TestCanonPermRandom(t *testing.T) {
	enumerated := 0
	seeds := 30
	if testenv.Short(t) {
		seeds = 10
	}
	for seed := range seeds {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 7)), gen.Config{Shape: gen.Symmetric}).Source
		m, err := spec.ParseFile("r.wrap", []byte(src), spec.Options{})
		if err != nil {
			continue
		}
		c, err := newCanon(m, Group{})
		if err != nil || c == nil {
			continue
		}
		states, ok := reachable(t, m, 20000, nil)
		if !ok {
			continue
		}
		perm := make([][]int32, len(c.sizes))
		for ti, n := range c.sizes {
			perm[ti] = make([]int32, n)
		}
		k := &Canon{c}
		for _, s := range states {
			cs := slices.Clone(s)
			k.Perm(cs, perm)
			if got := c.permute(s, perm); !slices.Equal(got, cs) {
				t.Fatalf("seed %d: Perm(%v) = %v with π = %v, but π(s) = %v", seed, s, cs, perm, got)
			}
			sc := c.newScratch()
			c.signatures(s, sc)
			if !c.prepare(s, sc) {
				enumerated++
			}
		}
	}
	if enumerated == 0 {
		t.Errorf("no state needed the enumeration of candidates")
	}
}
