package diff_test

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/diff"
	"github.com/wrapcheck/wrapcheck/spec"
)

func ExampleCompare() {
	old, _ := spec.ParseFile("old.wrap", []byte(`spec Gate
var approved: bool
var released: bool
action approve { approved := true }
action release when not released { released := true }
`), spec.Options{})
	new, _ := spec.ParseFile("new.wrap", []byte(`spec Gate
var approved: bool
var released: bool
action approve { approved := true }
action release when approved and not released { released := true }
`), spec.Options{})
	r, err := diff.Compare(context.Background(), old, new, diff.Options{NoChecks: true})
	if err != nil {
		panic(err)
	}
	if t := r.OldOnly.Trace; t != nil {
		fmt.Printf("old only: %d step(s), then %s\n", len(t.Steps)-1, t.Why)
	}
	fmt.Println("new only:", r.NewOnly.Trace != nil)
	// Output:
	// old only: 1 step(s), then new release is not enabled in any state new can be in
	// new only: false
}
