package checker_test

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

const approval = `spec ApprovalTOCTOU
const MAXV = 3
type Version = 0..MAXV
var content:  Version = 0
var approved: Version = 0
var granted:  bool = false
var released: bool = false
var shipped:  Version = 0
process approver {
  action approve when not granted { approved := content; granted := true }
}
process editor {
  action edit when content < MAXV and not released { content := content + 1 }
}
process releaser {
  action release when granted and not released { released := true; shipped := content }
}
invariant ShippedWhatWasApproved: released implies shipped == approved
terminal released
`

func ExampleRun() {
	m, err := spec.ParseFile("approval.wrap", []byte(approval), spec.Options{})
	if err != nil {
		panic(err)
	}
	res, err := checker.Run(context.Background(), m, checker.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.Violation.Kind, res.Violation.Name)
	for _, s := range res.Violation.Trace[1:] {
		fmt.Println(m.Actions[s.Action].Name)
	}
	fmt.Println(res.Stats.States, "states,", res.Stats.Transitions, "transitions")
	// Output:
	// violated invariant ShippedWhatWasApproved
	// approver.approve
	// editor.edit
	// releaser.release
	// 13 states, 12 transitions
}
