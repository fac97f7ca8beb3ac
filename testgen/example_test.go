package testgen_test

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/testgen"
)

// Generate picks the tests; each goal says which test covers it.
func ExampleGenerate() {
	src := []byte(`spec Ask
agent verifier(draft: bool): bool
var released: bool
var done: bool
action verify when not done {
  let ok = ask verifier(true)
  if ok { released := true }
  done := true
}
terminal done
`)
	m, err := spec.ParseFile("ask.wrap", src, spec.Options{})
	if err != nil {
		panic(err)
	}
	res, err := testgen.Generate(context.Background(), m, testgen.Options{Source: src})
	if err != nil {
		panic(err)
	}
	for _, g := range res.Goals {
		fmt.Printf("%s: %s: %s\n", res.Tests[g.Test].Name, g.Kind, g.Name)
	}
	// Output:
	// t01: action: verify fires
	// t01: branch: verify: if ok: then
	// t02: branch: verify: if ok: else
	// t01: write: verify: released := true changes released
	// t01: write: verify: done := true changes done
	// t02: answer: verifier answers false
	// t01: answer: verifier answers true
	// t01: guard off: verify is disabled
	// t01: terminal: terminal: done
}
