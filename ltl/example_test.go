package ltl_test

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Translate a formula to a Büchi automaton and test a lasso word.
func ExampleTranslate() {
	p, q := ltl.Atom(0), ltl.Atom(1)
	f := ltl.Always(ltl.Implies(p, ltl.Eventually(q))) // G(p -> F q)
	a := ltl.Translate(ltl.Not(f))
	fmt.Println("negation:", ltl.Not(f))
	fmt.Print(a.Format([]string{"p", "q"}))
	// p, then (not q)^ω: violates G(p -> F q), so the automaton of the
	// negation accepts it.
	fmt.Println(a.AcceptsLasso([][]bool{{true, false}}, [][]bool{{false, false}}))
	// Output:
	// negation: F (G !p1 && p0)
	// states 2, edges 3, acceptance sets 1, initial 0
	// state 0: F (G !p1 && p0)
	//   -> 0  true
	//   -> 1  p && !q {0}
	// state 1: G !p1
	//   -> 1  !q {0}
	// true
}

// Check the properties of a spec.
func ExampleCheck() {
	src := `spec Light
type Colour = {red, green}
var light: Colour
action change { light := if light == red then green else red }
property GreenAgain: always eventually light == green
property StaysRed: eventually always light == red
`
	m, err := spec.ParseFile("light.wrap", []byte(src), spec.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"GreenAgain", "StaysRed"} {
		res, err := ltl.Check(context.Background(), m, ltl.Options{Only: []string{name}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(name, res.Verdict)
		if v := res.Violation; v != nil {
			fmt.Println(v.Msg, "loop starts at", v.LoopStart)
		}
	}
	// Output:
	// GreenAgain holds
	// StaysRed violated
	// a run violates the property: 0 steps, then a cycle of 2 steps repeated forever loop starts at 1
}
