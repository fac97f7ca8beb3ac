package syntax

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseOne parses src and fails the test on error.
func parseOne(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("test.wrap", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return f
}

func TestParseExpr(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"ident", "x", "x"},
		{"int", "42", "42"},
		{"bools", "true or false", "(or true false)"},
		{"mul over add", "a + b * c", "(+ a (* b c))"},
		{"left assoc add", "a - b - c", "(- (- a b) c)"},
		{"left assoc mul", "a / b % c", "(% (/ a b) c)"},
		{"set ops", "a union b intersect c minus d", "(minus (union a (intersect b c)) d)"},
		{"unary minus", "-a * -b", "(* (- a) (- b))"},
		{"double minus", "- -a", "(- (- a))"},
		{"minus binds tighter than postfix? no", "-a[i]", "(- (index a i))"},
		{"cmp over add", "a + 1 < b * 2", "(< (+ a 1) (* b 2))"},
		{"not over cmp", "not a == b", "(not (== a b))"},
		{"and over not", "not a and b", "(and (not a) b)"},
		{"or over and", "a or b and c", "(or a (and b c))"},
		{"and left", "a and b and c", "(and (and a b) c)"},
		{"implies right", "a implies b implies c", "(implies a (implies b c))"},
		{"implies lowest boolean", "a or b implies c and d", "(implies (or a b) (and c d))"},
		{"in and subset", "x in s and s subset t", "(and (in x s) (subset s t))"},
		{"in set literal", "x in {a, b}", "(in x (set a b))"},
		{"empty set", "s == {}", "(== s (set))"},
		{"ne le ge gt", "a != b or a <= b or a >= b or a > b",
			"(or (or (or (!= a b) (<= a b)) (>= a b)) (> a b))"},
		{"postfix chain", "P[v].x[i]", "(index (. (index P v) x) i)"},
		{"selector", "P.x", "(. P x)"},
		{"call", "f(x, y + 1)", "(call f x (+ y 1))"},
		{"card", "card(s) > 0", "(> (call card s) 0)"},
		{"call no args", "f()", "(call f)"},
		{"paren kept", "(a or b) and c", "(and (paren (or a b)) c)"},
		{"cond", "if a then b else c", "(if a b c)"},
		{"cond extends right", "if a then b else c + 1", "(if a b (+ c 1))"},
		{"cond operand", "x + if a then 1 else 2", "(+ x (if a 1 2))"},
		{"then is contextual", "if then then then else then", "(if then then then)"},
		{"forall", "forall x in T: p(x) and q", "(forall x T (and (call p x) q))"},
		{"forall range", "forall i in 0..N-1: a[i]", "(forall i (.. 0 (- N 1)) (index a i))"},
		{"exists bool", "exists b in bool: b", "(exists b bool b)"},
		{"count", "count x in Proc: crit[x] <= 1", "(count x Proc (<= (index crit x) 1))"},
		{"quant as operand", "a and forall x in T: b or c", "(and a (forall x T (or b c)))"},
		{"nested quant", "forall x in T: exists y in T: x == y",
			"(forall x T (exists y T (== x y)))"},
		{"record lit", "record { f: 1, g: true }", "(record (f: 1) (g: true))"},
		{"record lit empty", "record {}", "(record)"},
		{"ask", "ask verifier(b, d)", "(ask verifier b d)"},
		{"always eventually", "always eventually p", "(always (eventually p))"},
		{"always and", "always p and q", "(and (always p) q)"},
		{"until over and", "a and b until c and d", "(and (and a (until b c)) d)"},
		{"until right", "a until b weakuntil c", "(until a (weakuntil b c))"},
		{"release", "a release b", "(release a b)"},
		{"not under until", "not a until b", "(until (not a) b)"},
		{"next binds like not", "next a == b", "(next (== a b))"},
		{"leadsto lowest", "a implies b leadsto c or d", "(leadsto (implies a b) (or c d))"},
		{"leadsto right", "a leadsto b leadsto c", "(leadsto a (leadsto b c))"},
		{"quant wraps temporal", "forall p in Proc: always (try[p] implies eventually crit[p])",
			"(forall p Proc (always (paren (implies (index try p) (eventually (index crit p))))))"},
		{"spans lines", "a\n  and\n  b", "(and a b)"},
		{"comments inside", "a /* c */ and // d\n b", "(and a b)"},
		{"short circuit example", "phase == stopped implies not released[step]",
			"(implies (== phase stopped) (not (index released step)))"},
		{"max int", "9223372036854775807", "9223372036854775807"},
		{"set operators are not reserved", "union union minus minus subset", "(minus (union union minus) subset)"},
		{"count is not reserved after in", "count x in S: x in S", "(count x S (in x S))"},
		{"quant in comparison", "(count x in T: p == q) <= N", "(<= (paren (count x T (== p q))) N)"},
		{"neg literal", "-1 + -x", "(+ (- 1) (- x))"},
		{"not not", "not not a", "(not (not a))"},
		{"eventually under and", "a and eventually b until c", "(and a (until (eventually b) c))"},
		{"once like not", "once a == b and c", "(and (once (== a b)) c)"},
		{"previously nested", "historically previously not a", "(historically (previously (not a)))"},
		{"since like until", "a and b since c and d", "(and (and a (since b c)) d)"},
		{"since right", "a since b until c", "(since a (until b c))"},
		{"once under since", "not a since once b", "(since (not a) (once b))"},
		{"once under implies", "r implies exists v in V: s == v and once (g and not previously g and c == v)",
			"(implies r (exists v V (and (== s v) (once (paren (and (and g (not (previously g))) (== c v)))))))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseOne(t, "spec X\nproperty P: "+tt.src+"\n")
			got := sexpr(f.Decls[0].(*PropertyDecl).Formula)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tt.src, diff)
			}
		})
	}
}

func TestParseType(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"name", "Version", "Version"},
		{"bool", "bool", "bool"},
		{"range", "0..MAXV", "(.. 0 MAXV)"},
		{"range exprs", "1..N-1", "(.. 1 (- N 1))"},
		{"range negative", "-1..N+1", "(.. (- 1) (+ N 1))"},
		{"enum", "{ pass, fail, garbled }", "(enum pass fail garbled)"},
		{"enum one", "{a}", "(enum a)"},
		{"symmetric", "symmetric 3", "(symmetric 3)"},
		{"symmetric const", "symmetric N", "(symmetric N)"},
		{"array", "[Proc]bool", "(array Proc bool)"},
		{"array range", "[0..N-1][Run]Phase", "(array (.. 0 (- N 1)) (array Run Phase))"},
		{"record", "record { f: 0..3, g: bool }", "(record-type (f: (.. 0 3)) (g: bool))"},
		{"set of", "set of Clause", "(set-of Clause)"},
		{"set of enum", "set of {a, b}", "(set-of (enum a b))"},
		{"set of range", "set of 0..7", "(set-of (.. 0 7))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseOne(t, "spec X\ntype T = "+tt.src+"\n")
			got := sexpr(f.Decls[0].(*TypeDecl).Type)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tt.src, diff)
			}
		})
	}
}

func TestParseStmt(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"assign", "x := e", "(block (:= x e))"},
		{"assign index", "x[i] := e + 1", "(block (:= (index x i) (+ e 1)))"},
		{"assign field", "x.f := e", "(block (:= (. x f) e))"},
		{"assign local", "P[i].x := 0", "(block (:= (. (index P i) x) 0))"},
		{"let", "let x = e", "(block (let x e))"},
		{"let ask", "let v = ask verifier(b, d)", "(block (let v (ask verifier b d)))"},
		{"assign ask", "x := ask a()", "(block (:= x (ask a)))"},
		{"skip", "skip", "(block skip)"},
		{"semicolons", "x := 1; y := 2;", "(block (:= x 1) (:= y 2))"},
		{"newlines", "x := 1\ny := 2\n", "(block (:= x 1) (:= y 2))"},
		{"choose", "choose x in T { y := x }", "(block (choose x T (block (:= y x))))"},
		{"choose where", "choose x in 0..N where x > 0 { skip }",
			"(block (choose x (.. 0 N) where (> x 0) (block skip)))"},
		{"if", "if a { x := 1 }", "(block (if a (block (:= x 1))))"},
		{"if else", "if a { skip } else { x := 1 }", "(block (if a (block skip) (block (:= x 1))))"},
		{"else if", "if a { skip } else if b { skip } else { skip }",
			"(block (if a (block skip) (if b (block skip) (block skip))))"},
		{"match", "match v {\n pass => x := 1\n fail, garbled => { y := 2 }\n else => skip\n}",
			"(block (match v (case pass (:= x 1)) (case fail garbled (block (:= y 2))) (case else skip)))"},
		{"match bool", "match b { true => skip; false => skip }",
			"(block (match b (case true skip) (case false skip)))"},
		{"assert", `assert x > 0 "x must be positive"`, `(block (assert (> x 0) "x must be positive"))`},
		{"assert escapes", `assert x "a \"q\"\n"`, `(block (assert x "a \"q\"\n"))`},
		{"assert no msg", "assert x\nskip", `(block (assert x "") skip)`},
		{"nested block", "{ skip }", "(block (block skip))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseOne(t, "spec X\ninit {\n"+tt.src+"\n}\n")
			got := sexpr(f.Decls[0].(*InitDecl).Body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tt.src, diff)
			}
		})
	}
}

func TestParseDecl(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"const", "const N = 3", "(const N 3)"},
		{"const expr", "const M = N * 2 + 1", "(const M (+ (* N 2) 1))"},
		{"type", "type V = 0..3", "(type V (.. 0 3))"},
		{"var", "var x: bool", "(var x bool)"},
		{"var init", "var x: Version = 0", "(var x Version 0)"},
		{"var set", "var s: set of T = {}", "(var s (set-of T) (set))"},
		{"fn", "fn f(a: T, b: bool): bool = b and a == x", "(fn f (a: T) (b: bool) bool (and b (== a x)))"},
		{"fn no params", "fn g(): 0..3 = 1", "(fn g (.. 0 3) 1)"},
		{"agent", "agent v(b: set of C, d: set of C): Verdict", "(agent v (b: (set-of C)) (d: (set-of C)) Verdict)"},
		{"agent assume next line", "agent v(d: set of C): Verdict\n  assume result == pass implies d subset b",
			"(agent v (d: (set-of C)) Verdict assume (implies (== result pass) (subset d b)))"},
		{"assume is contextual", "agent assume(assume: bool): bool assume assume",
			"(agent assume (assume: bool) bool assume assume)"},
		{"process", "process P { var x: bool\n action a { skip } }", "(process P (var x bool) (action a (block skip)))"},
		{"process family", "process P[i: Proc] { action a when x[i] { skip } }",
			"(process P (i: Proc) (action a when (index x i) (block skip)))"},
		{"action keyword name", "process P { action release { skip } }", "(process P (action release (block skip)))"},
		{"top action", "action tick when n < 3 { n := n + 1 }", "(action tick when (< n 3) (block (:= n (+ n 1))))"},
		{"init", "init { skip }", "(init (block skip))"},
		{"invariant", "invariant I: a implies b", "(invariant I (implies a b))"},
		{"property", "property L: always eventually p", "(property L (always (eventually p)))"},
		{"fairness weak", "fairness weak P", "(fairness weak P)"},
		{"fairness strong action", "fairness strong P.release", "(fairness strong P release)"},
		{"terminal", "terminal done", "(terminal done)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseOne(t, "spec X\n"+tt.src+"\n")
			got := sexpr(f.Decls[0])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: (-want +got)\n%s", tt.src, diff)
			}
		})
	}
}

func TestParsePositions(t *testing.T) {
	src := "spec X\n// c\nconst N = a +  b\nvar x: bool = /*é*/ x == y\n"
	f := parseOne(t, src)
	c := f.Decls[0].(*ConstDecl)
	bin := c.Value.(*BinaryExpr)
	v := f.Decls[1].(*VarDecl)
	eq := v.Init.(*BinaryExpr)
	got := []Position{f.NamePos, c.Pos, c.Name.Pos, bin.Pos, bin.OpPos, bin.Y.Position(), v.Name.Pos, eq.OpPos, f.Comments[0].Pos}
	want := []Position{
		{"test.wrap", 5, 1, 6},
		{"test.wrap", 12, 3, 1},
		{"test.wrap", 18, 3, 7},
		{"test.wrap", 22, 3, 11},
		{"test.wrap", 24, 3, 13},
		{"test.wrap", 27, 3, 16},
		{"test.wrap", 33, 4, 5},
		{"test.wrap", 52, 4, 23},
		{"test.wrap", 7, 2, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
