package machine_test

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/machine"
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

func ExampleMachine_Successors() {
	m, err := spec.ParseFile("approval.wrap", []byte(approval), spec.Options{})
	if err != nil {
		panic(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		panic(err)
	}
	mach := prog.NewMachine()
	var init machine.State
	mach.Init(func(_ int, s machine.State) { init = append(machine.State(nil), s...) })
	mach.Successors(init, func(action, branch int, t machine.State) {
		u := make([]int64, prog.Slots())
		prog.Unpack(u, t)
		fmt.Println(m.Actions[action].Name, branch, u)
	})
	// Output:
	// approver.approve 0 [0 0 1 0 0]
	// editor.edit 0 [1 0 0 0 0]
}
