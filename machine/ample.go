package machine

// Enabled appends to dst the actions whose guard holds in s, ascending,
// and returns the extended slice. A guard whose evaluation fails counts
// as enabled (running the action reports the failure), as in the search.
// When the interrupt (SetInterrupt) stopped a guard's evaluation, the
// result means nothing, and [Machine.Interrupted] reports it.
func (m *Machine) Enabled(s State, dst []int) []int {
	m.grow()
	m.unhalt()
	m.clearFailure()
	m.load(s)
	for a := range m.p.actions {
		if m.enabledGuard(a) {
			dst = append(dst, a)
		}
		m.err = nil
	}
	return dst
}

// Interrupted reports whether the interrupt stopped the machine's last
// call: it is what tells an [Machine.Enabled] cut short from a complete
// one (the other calls return [ErrInterrupted]).
func (m *Machine) Interrupted() bool { return m.halted }

// SuccessorsOf is [Machine.Successors] restricted to the given actions
// (ascending; nil: every action): it calls visit for each branch of each
// of them that is enabled in s, in (action, branch) order. Branch numbers
// are counted within the action, as Successors counts them.
func (m *Machine) SuccessorsOf(s State, actions []int, visit func(action, branch int, t State)) error {
	m.grow()
	m.unhalt()
	m.clearFailure()
	m.visit = visit
	m.leaf, m.col = m.pubLeaf, nil
	m.load(s)
	m.ord = 0
	n := len(actions)
	if actions == nil {
		n = len(m.p.actions)
	}
	for k := range n {
		a := k
		if actions != nil {
			a = actions[k]
		}
		m.start = m.ord
		m.runAction(a)
		if m.halted {
			break
		}
	}
	return m.expansionEnd()
}

// SuccessorsPacking is [Machine.Successors] that packs only the
// successors of action want: visit gets a nil state for the successors
// of the other actions, which are run all the same (their failures are
// returned) but not packed (want < 0: none is). For a caller that needs
// the other actions' branches counted, not their states.
func (m *Machine) SuccessorsPacking(s State, want int, visit func(action, branch int, t State)) error {
	m.packOne, m.packAction = true, want
	err := m.SuccessorsOf(s, nil, visit)
	m.packOne = false
	return err
}

// expansionEnd returns the outcome of an expansion that has run:
// ErrInterrupted when the interrupt stopped it, else its first failure
// (cleared), else nil.
func (m *Machine) expansionEnd() error {
	if m.halted {
		m.unhalt()
		return ErrInterrupted
	}
	if e := m.failed; e != nil {
		m.clearFailure()
		return e
	}
	return nil
}

// Stutter calls visit with the state that follows s on a stutter step,
// one that changes no variable but the past-time monitors (Model.Stutter:
// a state with no enabled action repeating); with no monitors, s itself.
// t is valid only during the call. A failure of a monitor's operand is
// returned as *ExecError.
func (m *Machine) Stutter(s State, visit func(t State)) error {
	if m.p.stutter == nil {
		visit(s)
		return nil
	}
	m.grow()
	m.clearFailure()
	m.visit = func(_, _ int, t State) { visit(t) }
	m.leaf, m.col = m.pubLeaf, nil
	m.load(s)
	m.action = -1
	m.ord, m.start = 0, 0
	m.p.stutter(m)
	m.undo(0)
	m.resume()
	if e := m.failed; e != nil {
		m.clearFailure()
		return e
	}
	return nil
}
