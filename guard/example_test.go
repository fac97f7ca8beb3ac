package guard_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// A Go wrapper asks the guard before each tool call and runs only what it
// allows.
func Example() {
	const path = "../examples/approval/toctou_fixed_revoke.wrap"
	src, _ := os.ReadFile(path)
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		panic(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		panic(err)
	}
	g, err := guard.New(prog, guard.Options{})
	if err != nil {
		panic(err)
	}
	defer g.Close()
	g.Decide(guard.Request{Op: "open", Run: "doc-42"})
	for i, call := range []string{"approver.approve", "editor.edit", "releaser.release"} {
		event, _ := json.Marshal(map[string]string{"action": call})
		d := g.Decide(guard.Request{Run: "doc-42", ID: fmt.Sprint(i), Event: event})
		if !d.IsAllowed() {
			fmt.Printf("blocked %s: %s\n", call, d.Reason)
			continue
		}
		fmt.Printf("ran %s\n", call)
	}
	// Output:
	// ran approver.approve
	// ran editor.edit
	// blocked releaser.release: the spec does not allow releaser.release here
}
