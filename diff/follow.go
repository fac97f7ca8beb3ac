package diff

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Follows reports whether old allows tr, a trace of new, as the package
// observes traces: from an initial state of old whose shared variables
// are those of tr's first state, each step by the action of the same
// name (after rename, which renames old's names to new's as
// Options.Map does) to a state whose shared variables are those of the
// step's state. A trace of new that old cannot follow shows behaviour
// that changed; one it follows, behaviour both have. The error reports a
// bad rename or a model the engine cannot compile.
func Follows(old, new *spec.Model, tr []verdict.Step, rename map[string]string) (bool, error) {
	if len(tr) == 0 {
		return true, nil
	}
	obs, err := Observe(old, new, rename)
	if err != nil {
		return false, err
	}
	so, err := newSide("old", old, obs.Shared, true)
	if err != nil {
		return false, err
	}
	var nobs [][2]int
	for _, sh := range obs.Shared {
		nobs = append(nobs, [2]int{sh.New.Slot, sh.New.Type.Width})
	}
	matches := func(t machine.State, want []int64) bool {
		so.prog.Unpack(so.buf, t)
		for i, o := range so.obs {
			n := nobs[i]
			if !slices.Equal(so.buf[o[0]:o[0]+o[1]], want[n[0]:n[0]+n[1]]) {
				return false
			}
		}
		return true
	}
	var set []machine.State
	keep := func(t machine.State, want []int64) {
		if !matches(t, want) {
			return
		}
		copy(so.vec, t)
		if _, isNew, err := so.store.Insert(so.vec, 0); err == nil && isNew {
			set = append(set, slices.Clone(t))
		}
	}
	if err := so.mach.Init(func(_ int, t machine.State) { keep(t, tr[0].State) }); err != nil {
		return false, nil // old fails where new starts
	}
	for _, st := range tr[1:] {
		if len(set) == 0 {
			return false, nil
		}
		if st.Action < 0 || st.Action >= len(obs.NewToOld) || obs.NewToOld[st.Action] < 0 {
			return false, nil // an action old does not have
		}
		action := obs.NewToOld[st.Action]
		cur := set
		set = nil
		so.reset()
		for _, s := range cur {
			_ = so.mach.Successors(s, func(a, _ int, t machine.State) {
				if a == action {
					keep(t, st.State)
				}
			})
		}
	}
	return len(set) > 0, nil
}
