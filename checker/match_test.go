package checker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// members returns "m0, m1, ..., m<n-1>".
func members(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "m%d", i)
	}
	return b.String()
}

// TestMatchShapes checks every shape of match (else only, bool, enums
// whose case values are dense or spread over more than 2^16 values,
// several values per case, cases and else, a value whose evaluation
// fails) against the same spec written as an if/else chain. A match with
// only an else arm, or over a big enum, used to fail to compile ("match
// without small case values").
func TestMatchShapes(t *testing.T) {
	big := "type E = {" + members(70000) + "}\nvar e: E\n"
	tests := []struct {
		name, decls, match, ifs string
	}{
		{"else only",
			"var b: bool\nvar n: 0..3\naction step when n < 3 { n := n + 1 }\n",
			"match b { else => b := not b }", "if true { b := not b }"},
		{"else only, failing value",
			"var a: [0..1]bool\nvar i: 0..3\naction step when i < 3 { i := i + 1 }\n",
			"match a[i] { else => a[0] := true }", "if a[i] == a[i] { a[0] := true }"},
		{"bool exhaustive",
			"var b: bool\nvar x: 0..2\n",
			"match b { true => x := 1  false => { x := 2; b := true } }",
			"if b == true { x := 1 } else if b == false { x := 2; b := true }"},
		{"bool case and else",
			"var b: bool\nvar x: 0..2\n",
			"match b { false => b := true  else => x := (x + 1) % 3 }",
			"if b == false { b := true } else { x := (x + 1) % 3 }"},
		{"enum cases and else",
			"type C = {red, green, blue, black}\nvar c: C\nvar x: 0..3\n",
			"match c { red => c := green  green, blue => { x := (x + 1) % 4; c := blue }  else => skip }",
			"if c == red { c := green } else if c == green or c == blue { x := (x + 1) % 4; c := blue } else { skip }"},
		{"enum exhaustive with a failing arm",
			"type C = {red, green, blue}\nvar c: C\nvar x: 0..2\n",
			"match c { red => c := green  green => c := blue  blue => x := x + 1 }",
			"if c == red { c := green } else if c == green { c := blue } else if c == blue { x := x + 1 }"},
		{"big enum, spread cases and else",
			big + "var x: 0..3\naction hop { e := if e == m0 then m69999 else if e == m69999 then m123 else m0 }\n",
			"match e { m0 => x := 1  m69999 => x := 2  m1, m2 => skip  else => x := 3 }",
			"if e == m0 { x := 1 } else if e == m69999 { x := 2 } else if e == m1 or e == m2 { skip } else { x := 3 }"},
		{"big enum, else only",
			big + "var x: 0..1\n",
			"match e { else => { x := 1 - x; e := m69999 } }", "if true { x := 1 - x; e := m69999 }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]outcome
			for i, body := range []string{tt.match, tt.ifs} {
				src := "spec M\n" + tt.decls + "action a { " + body + " }\nterminal true\n"
				m, err := spec.ParseFile("m.wrap", []byte(src), spec.Options{})
				if err != nil {
					t.Fatalf("%v\n%s", err, src)
				}
				for _, workers := range []int{1, 3} {
					r, err := Run(context.Background(), m, Options{Workers: workers})
					if err != nil {
						t.Fatal(err)
					}
					o := summarize(r)
					if workers > 1 {
						if diff := cmp.Diff(got[i], o); diff != "" {
							t.Errorf("workers %d (-1 worker +%d):\n%s", workers, workers, diff)
						}
					}
					got[i] = o
				}
			}
			if diff := cmp.Diff(got[1], got[0]); diff != "" {
				t.Errorf("match vs if/else chain (-if +match):\n%s", diff)
			}
			if got[0].States < 2 {
				t.Errorf("only %d states: the test does not exercise the match", got[0].States)
			}
		})
	}
}

// TestMatchSparse checks the binary-search lookup on a hand-built match
// whose case values are far apart (no front end builds one: enum and bool
// values are dense), against the if/else chain.
func TestMatchSparse(t *testing.T) {
	build := func(useMatch bool) *spec.Model {
		b := newBuilder("sparse")
		x := b.global("x", rangeT(0, 1<<40))
		y := b.global("y", rangeT(0, 3))
		vals := []int64{1 << 40, 0, 1 << 20, 7}
		next := []int64{0, 7, 1 << 40, 1 << 20}
		var body *spec.Stmt
		if useMatch {
			body = &spec.Stmt{Op: spec.SMatch, Value: x, HasElse: true,
				Else: []*spec.Stmt{assign(y, num(3))}}
			for i, v := range vals {
				body.Cases = append(body.Cases, &spec.Case{Values: []int64{v}, Body: []*spec.Stmt{assign(x, num(next[i]))}})
			}
		} else {
			var els []*spec.Stmt
			els = []*spec.Stmt{assign(y, num(3))}
			for i := len(vals) - 1; i >= 0; i-- {
				els = []*spec.Stmt{ifElse(eq(x, num(vals[i])), []*spec.Stmt{assign(x, num(next[i]))}, els)}
			}
			body = els[0]
		}
		b.action("a", nil, body)
		b.action("b", lt(y, num(2)), assign(y, add(y, num(1))), assign(x, num(5)))
		b.invariant("NotThree", ne(y, num(3)))
		return b.build()
	}
	var got [2]outcome
	for i, useMatch := range []bool{true, false} {
		r, err := Run(context.Background(), build(useMatch), Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		got[i] = summarize(r)
	}
	if diff := cmp.Diff(got[1], got[0]); diff != "" {
		t.Errorf("match vs if/else chain (-if +match):\n%s", diff)
	}
	if got[0].Verdict != "violated" || got[0].States < 5 {
		t.Errorf("outcome %+v: want a violation after at least 5 states", got[0])
	}
}
