package machine

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

func genFor(t *testing.T, src string) *NativeSource {
	t.Helper()
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := GenerateNative(p)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// TestGenerateNative checks which units the generator supports, that its
// output is valid Go and deterministic, and that the key follows the code.
func TestGenerateNative(t *testing.T) {
	tests := []struct {
		name         string
		src          string
		units, natve int
		has          []string // in the code
	}{
		{"assignments", `spec A
var x: 0..3
type I = 0..2
var ys: [I]bool
action a when x < 3 { x := x + 1  ys[x - 1] := true }
action b when x == 3 and ys[0] { x := 0 }
invariant I: x <= 3 and not ys[2] or x > 0
`, 6, 6, []string{"m.failAssign(", "index %d out of range 0..2", "m.collect(c)", "m.leaf(m)", "_repack(m *Machine", "_cand(m *Machine", "undo{int32(o",
			"sel uint64) int {", "(d0&0x13 != 0)", "1 - (int64((v0>>4)&0x1) + 0)"}},
		{"dynamic targets", `spec D
var i: 0..2
var a: [0..2]0..3
var s: [0..2]set of 0..3
action inc when i < 2 { a[i] := a[i] + 1  i := i + 1 }
action put { a[i] := 2  s[i] := {1, 3} }
invariant A: a[i] <= 3
`, 5, 5, []string{" > 3 {\nm.failAssign(", "&^0xf != 0 {\nm.failAssign(", "undo{int32(o", "check: nil"}},
		{"branching", `spec B
type C = {r, g, b}
var c: C
var n: 0..4
action a {
  choose k in 0..2 where k != n { n := k }
  match c { r => c := g  g => c := b  else => skip }
  if n > 1 { c := r } else { assert n < 2 "small" }
}
terminal n == 4 or c == b
`, 3, 3, []string{"m.tick()", "switch ", "\"small\"", "terminal: n"}},
		{"exact", `spec E
var a: -3..3 = 1
action step { a := -a }
invariant U: a * 3000000000 * 4000000000 / 4000000000 == 3000000000 * a
invariant V: a >= -3
`, 4, 3, nil},
		{"division by constants", `spec Z
var a: 0..3
var b: 0..3
action s when a < 3 { a := a + 1 }
action t when a == 3 and b == 0 { b := (a / 0) + 1 }
action u when a > 3 { a := a % 0 }
action v { b := a / 2 % 3 }
invariant Ok: b <= 3
`, 9, 9, []string{"\"division by zero\"", "\"modulo by zero\"", " / int64(2)", " % int64(3)"}},
		{"compound choose", `spec R
type P = record { x: 0..2, y: bool }
var p: P
action pick { choose q in P where q.x != p.x { p := q } }
`, 2, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := genFor(t, tt.src)
			if d := cmp.Diff([2]int{tt.units, tt.natve}, [2]int{ns.Units, ns.Native}); d != "" {
				t.Errorf("units, native (-want +got):\n%s", d)
			}
			if _, err := format.Source(ns.Code); err != nil {
				t.Errorf("not Go: %v", err)
			}
			if d := zeroDivisors(t, ns.Code); len(d) > 0 {
				t.Errorf("Go divisions by a constant zero (a compile error): %q", d)
			}
			if strings.Contains(string(ns.Code), "m.set(") {
				t.Errorf("a scalar store calls Machine.set")
			}
			for _, h := range tt.has {
				if !strings.Contains(string(ns.Code), h) {
					t.Errorf("no %q in the code", h)
				}
			}
			if strings.Contains(string(ns.Code), nativePrefix) {
				t.Errorf("the prefix is left in the code")
			}
			again := genFor(t, tt.src)
			if d := cmp.Diff(string(ns.Code), string(again.Code)); d != "" || ns.Key != again.Key {
				t.Errorf("not deterministic (-first +second):\n%s", d)
			}
			other := genFor(t, strings.Replace(tt.src, "spec ", "spec Z", 1)+"\n")
			if other.Key == ns.Key && string(other.Code) != string(ns.Code) {
				t.Errorf("two codes share the key %s", ns.Key)
			}
		})
	}
}

// zeroDivisors returns the divisions and remainders of code whose divisor
// is a constant zero, which go build rejects.
func zeroDivisors(t *testing.T, code []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "native.go", code, 0)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.QUO && b.Op != token.REM {
			return true
		}
		y := b.Y
		if c, ok := y.(*ast.CallExpr); ok && len(c.Args) == 1 {
			y = c.Args[0] // int64(0)
		}
		if l, ok := y.(*ast.BasicLit); ok && l.Kind == token.INT {
			if v, err := strconv.ParseInt(l.Value, 0, 64); err == nil && v == 0 {
				bad = append(bad, fmt.Sprintf("%s: %s", fset.Position(b.Pos()), code[fset.Position(b.Pos()).Offset:fset.Position(b.End()).Offset]))
			}
		}
		return true
	})
	return bad
}

// TestNativeTable checks the registration table: one case per key, sorted.
func TestNativeTable(t *testing.T) {
	got := string(NativeTable([]string{"bb", "aa", "bb"}))
	if _, err := format.Source([]byte(got)); err != nil {
		t.Fatalf("not Go: %v\n%s", err, got)
	}
	if i, j := strings.Index(got, `case "aa"`), strings.Index(got, `case "bb"`); i < 0 || j < i || strings.Count(got, "case ") != 2 {
		t.Errorf("table:\n%s", got)
	}
	if !strings.Contains(got, "//go:build wrapcheck_native") {
		t.Errorf("no build tag:\n%s", got)
	}
}

// TestNoNativeByDefault checks that a plain build runs closures only.
func TestNoNativeByDefault(t *testing.T) {
	p := compile(t, "spec A\nvar x: 0..3\naction a when x < 3 { x := x + 1 }\n")
	if n, u := p.Native(); n != 0 || u != 3 {
		t.Errorf("Native() = %d, %d, want 0, 3", n, u)
	}
}

// TestCheckNative checks that Program.CheckNative accepts generated
// search parts that agree with the generic ones and finds those that do
// not, on layouts of one and of several words.
func TestCheckNative(t *testing.T) {
	srcs := map[string]string{
		"one word": "spec A\ntype C = {r, g, b}\nvar x: 0..5\nvar c: C\nvar s: set of 0..6\nvar k: -3..2\naction a when x < 5 { x := x + 1 }\naction b when c == r { c := g }\naction d when x == 2 and k < 2 { k := k + 1 }\n" +
			"invariant I: x < 4 and c != b\ninvariant J: k != 1 implies 3 in s\ninvariant F: x != 5 or 6 / (k + 3) >= 1\n",
		"words": "spec W\nvar a: [0..7]0..255\nvar b: [0..7]0..255\nvar c: [0..7]0..255\nvar x: 0..3\naction s when x < 3 { x := x + 1  a[x] := 7 }\n" +
			"invariant I: forall i in 0..7: a[i] < 128\ninvariant V: b[x] <= c[x] + 100 and x != 2\n",
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			p := compile(t, src)
			if err := p.CheckNative(1, 100); err != nil {
				t.Fatalf("no generated parts: %v", err)
			}
			p.lay.natRepack = func(m *Machine, dst, parent State) uint64 { return m.repackHash(dst, parent) }
			p.natCand = func(m *Machine) uint64 { return m.candTable() }
			if err := p.CheckNative(1, 500); err != nil {
				t.Errorf("the generic parts themselves: %v", err)
			}
			p.lay.natRepack = func(m *Machine, dst, parent State) uint64 {
				h := m.repackHash(dst, parent)
				if len(m.trail) > 2 {
					dst[len(dst)-1] ^= 1 << 5 // a wrong bit
				}
				return h
			}
			if err := p.CheckNative(1, 500); err == nil || !strings.Contains(err.Error(), "RepackHash") {
				t.Errorf("a wrong repack: %v", err)
			}
			p.lay.natRepack = func(m *Machine, dst, parent State) uint64 { return m.repackHash(dst, parent) + 1 }
			if err := p.CheckNative(1, 500); err == nil {
				t.Errorf("a wrong hash was not found")
			}
			p.lay.natRepack = nil
			p.natCand = func(m *Machine) uint64 { return m.candTable() &^ 1 }
			if err := p.CheckNative(1, 500); err == nil || !strings.Contains(err.Error(), "Candidates") {
				t.Errorf("a wrong Candidates: %v", err)
			}
			p.natCand = nil
			p.natCheck = checkByArea
			if err := p.CheckNative(1, 500); err != nil {
				t.Errorf("the check over the check area itself: %v", err)
			}
			for what, f := range map[string]func(m *Machine, vec, parent State, sel uint64) int{
				"nothing checked": func(*Machine, State, State, uint64) int { return -1 },
				"the parent checked": func(m *Machine, vec, parent State, sel uint64) int {
					cp := slices.Clone(vec)
					cp[0] ^= (vec[0] ^ parent[0]) & 0xff // the low slots of the parent
					return checkByArea(m, cp, parent, sel)
				},
				"no selection": func(m *Machine, vec, parent State, sel uint64) int { return checkByArea(m, vec, parent, ^uint64(0)) },
			} {
				p.natCheck = f
				if err := p.CheckNative(1, 500); err == nil || !strings.Contains(err.Error(), "CheckPacked") {
					t.Errorf("%s: %v", what, err)
				}
			}
		})
	}
}

// checkByArea is CheckPacked by the conjuncts over the check area, as
// the search's checkState evaluates them: what the generated check must
// do.
func checkByArea(m *Machine, vec, parent State, sel uint64) int {
	p := m.p
	old := make([]int64, p.n)
	p.lay.unpack(old, parent)
	p.lay.unpack(m.mem[p.checkOff:p.checkOff+p.n], vec)
	return m.checkArea(old, sel)
}

// TestRunCandidates checks RunCandidates against RunAction over the bits
// of Candidates, failures handled in between, on every reachable state
// of specs with failing actions, one of them with more than 64 actions:
// the same successors with the same actions and ordinals, the same
// failures at the same ordinals.
func TestRunCandidates(t *testing.T) {
	var many strings.Builder
	many.WriteString("spec M\nvar x: 0..3\nvar y: 0..70\n")
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&many, "action a%d when x == %d { y := %d  assert y != %d \"bad\"  x := (x + 1) %% 4 }\n", i, i%4, i, 3*(i%5))
	}
	srcs := map[string]string{
		"failing": "spec F\nvar x: 0..4\nvar a: [0..2]0..2\naction inc when x < 4 { x := x + 1 }\naction put when x > 0 { a[x - 1] := a[x - 1] + 1 }\naction bad when x == 2 { assert a[0] == 0 \"a0\" }\naction dec when x > 0 { x := x - 1 }\n",
		"many":    many.String(),
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			p := compile(t, src)
			m := p.NewMachine()
			var log []string
			var next [][]int64
			m.OnState(func(m *Machine) {
				log = append(log, fmt.Sprintf("%d/%d %v", m.Action(), m.Ordinal(), m.Slots()))
				next = append(next, slices.Clone(m.Slots()))
			})
			m.RunInit()
			m.ClearFailure()
			seen := map[string]bool{}
			queue := next
			for len(queue) > 0 {
				u := queue[0]
				queue = queue[1:]
				if k := fmt.Sprint(u); seen[k] {
					continue
				} else {
					seen[k] = true
				}
				s := make(State, p.Words())
				p.Pack(s, u)
				fail := func() {
					log = append(log, fmt.Sprintf("fail %d/%d", m.Action(), m.FailOrdinal()))
					m.ClearFailure()
				}
				log, next = log[:0], next[:0]
				m.Load(s)
				for i, x := range m.Candidates() {
					for ; x != 0; x &= x - 1 {
						if !m.RunAction(i*64 + bits.TrailingZeros64(x)) {
							fail()
						}
					}
				}
				want := slices.Clone(log)
				queue = append(queue, next...)
				log, next = log[:0], next[:0]
				m.Load(s)
				for a := m.RunCandidates(0); a >= 0; a = m.RunCandidates(a) {
					fail()
				}
				if d := cmp.Diff(want, log); d != "" {
					t.Fatalf("at %v (-RunAction +RunCandidates):\n%s", u, d)
				}
			}
			if len(seen) < 5 {
				t.Errorf("only %d states", len(seen))
			}
		})
	}
}
