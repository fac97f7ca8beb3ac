package spec_test

import (
	"errors"
	"fmt"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func ExampleParseFile() {
	src := `spec Counter
const MAX = 3
var n: 0..MAX
action inc when n < MAX { n := n + 1 }
invariant Bounded: n <= MAX
`
	m, err := spec.ParseFile("counter.wrap", []byte(src), spec.Options{Defines: map[string]int64{"MAX": 5}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name, m.Vars[0].Name, m.Slots[0].Lo, m.Slots[0].Hi, m.Slots[0].Bits, m.Actions[0].Name)
	// Output: Counter n 0 5 3 inc
}

func ExampleCheck_errors() {
	src := `spec Mutex
type Proc = symmetric 2
var turn: Proc
var flag: [Proc]bool
action a { turn := turn + flag[turn] }
`
	f, err := syntax.Parse("mutex.wrap", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = spec.Check(f, spec.Options{})
	fmt.Println(err)
	_, err = spec.Check(f, spec.Options{Defines: map[string]int64{"N": 3}})
	fmt.Println(errors.Is(err, spec.ErrUnknownDefine))
	// Output:
	// mutex.wrap:5:20: invalid operation: turn + flag[turn] (mismatched types Proc and bool)
	// true
}

func ExampleVet() {
	src := `spec Gate
type Verdict = {pass, fail}
var v: Verdict
agent judge(draft: 0..3): Verdict assume draft > 3 implies result == pass
agent unused(): bool
action ask_judge { v := ask judge(1) }
`
	f, _ := syntax.Parse("gate.wrap", []byte(src))
	m, err := spec.Check(f, spec.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range spec.Vet(f, m) {
		fmt.Println(w)
	}
	// Output: gate.wrap:5:7: agent unused is never asked
}
