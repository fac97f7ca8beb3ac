package machine

// A Branch is one decision taken on the branch being run: an agent's
// answer (Agent >= 0, with the arguments it was asked with) or a choose
// value (Agent == -1, Args nil). The quant package rebuilds from them
// the tree of an action's branches, whose rated answers are
// probabilistic and whose other decisions are nondeterministic.
type Branch struct {
	Agent int     // index into spec.Model.Agents; -1: a choose
	Args  []int64 // the scalars of the agent's arguments, in order
	Value []int64 // the answer's scalars, or the chosen value's
}

// RecordBranches turns on (or off) the recording of the decisions taken
// on each branch, which [Machine.Branches] then reports during a visit
// callback of Init or Successors. Recording allocates; the searches
// leave it off. It does not reach generated code (check --compile).
func (m *Machine) RecordBranches(on bool) { m.branching = on }

// Branches returns the decisions taken on the branch being visited, in
// the order taken, when RecordBranches is on. The slice is valid only
// during the callback.
func (m *Machine) Branches() []Branch { return m.branches }

// pushChoice records a choose value (w scalars from mem[off:]).
func (m *Machine) pushChoice(off, w int) {
	m.branches = append(m.branches, Branch{Agent: -1, Value: append([]int64(nil), m.mem[off:off+w]...)})
}
