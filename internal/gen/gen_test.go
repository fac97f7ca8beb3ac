package gen

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestGenerate checks every shape on 60 seeds: the same seed gives the
// same spec, and the specs pass the front end (a Mixed spec may be
// rejected now and then, an Exact one only when it says "static").
func TestGenerate(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		maxRejected int
	}{
		{"mixed", Config{Shape: Mixed}, 6},
		{"symmetric", Config{Shape: Symmetric}, 15},
		{"temporal", Config{Shape: Temporal}, 30},
		{"exact", Config{Shape: Exact, Index: 7}, 0},
		{"exact-constants", Config{Shape: Exact, Index: 8, Constants: true}, 0},
		{"pair", Config{Shape: Pair}, 0},
		{"past", Config{Shape: Past}, 0},
		{"live", Config{Shape: Live}, 0},
		{"big", Config{Shape: Big, Lines: 100}, 0},
	}
	const n = 60
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rejected := 0
			wants := map[string]int{}
			for seed := range uint64(n) {
				a := Generate(rand.New(rand.NewPCG(seed, 1)), tt.cfg)
				b := Generate(rand.New(rand.NewPCG(seed, 1)), tt.cfg)
				if diff := cmp.Diff(a, b); diff != "" {
					t.Fatalf("seed %d: two runs differ (-first +second):\n%s", seed, diff)
				}
				_, err := spec.ParseFile("gen.wrap", []byte(a.Source), spec.Options{})
				if tt.cfg.Shape == Exact {
					wants[a.Want]++
					if !strings.Contains(a.Source, fmt.Sprintf("spec Exact%d\n", tt.cfg.Index)) {
						t.Errorf("seed %d: not named Exact%d:\n%s", seed, tt.cfg.Index, a.Source)
					}
					if (err != nil) != (a.Want == "static") {
						t.Errorf("seed %d: want %s, front end: %v\n%s", seed, a.Want, err, a.Source)
					}
					if err != nil && a.Want == "static" {
						if diff := cmp.Diff("gen.wrap:"+a.Error, err.Error()); diff != "" {
							t.Errorf("seed %d: error (-want +got):\n%s", seed, diff)
						}
					}
					continue
				}
				if err != nil {
					rejected++
					continue
				}
				if tt.cfg.Shape == Past {
					m, err := spec.ParseFile("gen.wrap", []byte(a.Source), spec.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if got, want := len(m.Invariants), 1+len(a.Atoms); got != want || m.Invariants[0].Name != "Probe" {
						t.Errorf("seed %d: %d invariants (first %s), want Probe and one per atom: %d", seed, got, m.Invariants[0].Name, want)
					}
					stuck := a.Base + "invariant Stuck: " + a.Stuck + "\n"
					if _, err := spec.ParseFile("base.wrap", []byte(stuck), spec.Options{}); err != nil || !strings.HasPrefix(a.Source, a.Base) {
						t.Errorf("seed %d: the base with its stuck condition: %v\n%s", seed, err, stuck)
					}
				}
				if tt.cfg.Shape == Pair {
					m, err := spec.ParseFile("mutant.wrap", []byte(a.Mutant), spec.Options{})
					if err != nil {
						t.Fatalf("seed %d: mutant: %v\n%s", seed, err, a.Mutant)
					}
					var names []string
					for _, v := range m.Vars {
						names = append(names, v.Name)
					}
					for _, o := range a.Observed {
						if !slices.Contains(names, o) {
							t.Errorf("seed %d: observed %s is not a variable of the mutant %v", seed, o, names)
						}
					}
				}
			}
			if rejected > tt.maxRejected {
				t.Errorf("the front end rejected %d of %d specs, want at most %d", rejected, n, tt.maxRejected)
			}
			if tt.cfg.Shape == Exact && len(wants) < 2 {
				t.Errorf("the outcomes are not varied: %v", wants)
			}
		})
	}
}

// TestShapesDiffer: a configuration picks its shape; the same seed gives
// different specs in different shapes.
func TestShapesDiffer(t *testing.T) {
	seen := map[string]Shape{}
	for _, s := range []Shape{Mixed, Symmetric, Temporal, Exact, Pair, Past, Live, Big} {
		src := Generate(rand.New(rand.NewPCG(1, 1)), Config{Shape: s}).Source
		if prev, dup := seen[src]; dup {
			t.Errorf("shapes %d and %d give the same spec", prev, s)
		}
		seen[src] = s
	}
}

// TestGenerateModel checks both model shapes on 60 seeds: the same seed
// gives the same model, every model compiles, and the models vary.
func TestGenerateModel(t *testing.T) {
	for _, shape := range []ModelShape{Counters, Rich} {
		distinct := map[string]bool{}
		for seed := range uint64(60) {
			a := GenerateModel(rand.New(rand.NewPCG(seed, 1)), shape)
			ja, jb := modelJSON(t, a), modelJSON(t, GenerateModel(rand.New(rand.NewPCG(seed, 1)), shape))
			if diff := cmp.Diff(ja, jb); diff != "" {
				t.Fatalf("shape %d, seed %d: two runs differ (-first +second):\n%s", shape, seed, diff)
			}
			if _, err := machine.Compile(a); err != nil {
				t.Errorf("shape %d, seed %d: %v", shape, seed, err)
			}
			distinct[ja] = true
		}
		if len(distinct) < 50 {
			t.Errorf("shape %d: %d distinct models of 60", shape, len(distinct))
		}
	}
}

// modelJSON returns m as JSON: every field, for comparing two models.
func modelJSON(t *testing.T, m *spec.Model) string {
	t.Helper()
	j, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// TestGenerateExpr: the same seed gives the same tree, and the trees (and
// the leaves of depth 0) have every kind of node at their root.
func TestGenerateExpr(t *testing.T) {
	kinds := map[string]bool{}
	for seed := range uint64(200) {
		a := GenerateExpr(rand.New(rand.NewPCG(seed, 1)), 4)
		b := GenerateExpr(rand.New(rand.NewPCG(seed, 1)), 4)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("seed %d: two runs differ (-first +second):\n%s", seed, diff)
		}
		kinds[fmt.Sprintf("%T", a)] = true
		kinds[fmt.Sprintf("%T", GenerateExpr(rand.New(rand.NewPCG(seed, 2)), 0))] = true
	}
	want := []string{"*syntax.BinaryExpr", "*syntax.BoolLit", "*syntax.CallExpr", "*syntax.CondExpr", "*syntax.IdentExpr",
		"*syntax.IndexExpr", "*syntax.IntLit", "*syntax.QuantExpr", "*syntax.SelectorExpr", "*syntax.SetLit", "*syntax.UnaryExpr"}
	for _, k := range want {
		if !kinds[k] {
			t.Errorf("no %s at the root of 200 trees", k)
		}
	}
}

// TestGenerateIRExpr: the same seed gives the same expression, of the
// kind asked for; every local it reads is a frame input (0 and 1 integers,
// 2 a bool) or bound around the read, each binder takes a slot of its own
// from 3 up, and every operator of the generator occurs.
func TestGenerateIRExpr(t *testing.T) {
	ops := map[spec.Op]bool{}
	var check func(e *spec.Expr, scope map[int]spec.Kind, bound map[int]bool) string
	check = func(e *spec.Expr, scope map[int]spec.Kind, bound map[int]bool) string {
		ops[e.Op] = true
		bind := func(s int) string {
			if s < 3 || bound[s] {
				return fmt.Sprintf("slot %d bound twice or over an input", s)
			}
			bound[s] = true
			return ""
		}
		switch e.Op {
		case spec.OpLocal:
			if k, ok := scope[e.Slot]; !ok || k != e.Type.Kind {
				return fmt.Sprintf("reads @%d (%v) out of scope", e.Slot, e.Type.Kind)
			}
		case spec.OpLet:
			if msg := bind(e.Binds[0]); msg != "" {
				return msg
			}
			if msg := check(e.Args[0], scope, bound); msg != "" {
				return msg
			}
			inner := maps.Clone(scope)
			inner[e.Binds[0]] = spec.IntKind
			return check(e.Args[1], inner, bound)
		case spec.OpForall, spec.OpExists, spec.OpCount:
			if msg := bind(e.Slot); msg != "" {
				return msg
			}
			inner := maps.Clone(scope)
			if e.Op != spec.OpCount {
				inner[e.Slot] = spec.IntKind
			}
			return check(e.Args[0], inner, bound)
		}
		for _, a := range e.Args {
			if msg := check(a, scope, bound); msg != "" {
				return msg
			}
		}
		return ""
	}
	for seed := range uint64(400) {
		kind := []spec.Kind{spec.IntKind, spec.BoolKind}[seed%2]
		a := GenerateIRExpr(rand.New(rand.NewPCG(seed, 1)), kind, 5)
		b := GenerateIRExpr(rand.New(rand.NewPCG(seed, 1)), kind, 5)
		if diff := cmp.Diff(modelJSON(t, &spec.Model{Terminal: a}), modelJSON(t, &spec.Model{Terminal: b})); diff != "" {
			t.Fatalf("seed %d: two runs differ (-first +second):\n%s", seed, diff)
		}
		if a.Type.Kind != kind {
			t.Errorf("seed %d: a %v expression, want %v", seed, a.Type.Kind, kind)
		}
		scope := map[int]spec.Kind{0: spec.IntKind, 1: spec.IntKind, 2: spec.BoolKind}
		if msg := check(a, scope, map[int]bool{}); msg != "" {
			t.Errorf("seed %d: %s", seed, msg)
		}
	}
	for _, op := range []spec.Op{spec.OpConst, spec.OpLocal, spec.OpNeg, spec.OpCond, spec.OpCount, spec.OpLet, spec.OpCard,
		spec.OpAdd, spec.OpSub, spec.OpMul, spec.OpDiv, spec.OpMod, spec.OpNot, spec.OpAnd, spec.OpOr, spec.OpImplies,
		spec.OpForall, spec.OpExists, spec.OpIn, spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe} {
		if !ops[op] {
			t.Errorf("no %v in 400 expressions", op)
		}
	}
}
