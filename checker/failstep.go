package checker

import "slices"

// FailedStep returns the trace step of the failure that the last Init,
// Successors or SuccessorsOf call returned as *ExecError: the failing
// action (-1 for the init block), the state as it was when the failure
// happened and the agent answers taken on the failing branch, as a
// search's counterexample shows them. The state and answers are only
// kept while RecordAnswers is on; without it they are nil. The step
// is a copy.
func (m *Machine) FailedStep() Step {
	st := Step{Action: m.failAction}
	if m.record {
		st.State, st.Asked = slices.Clone(m.failState), cloneAnswers(m.failAsked)
	}
	return st
}
