package diff

import (
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Shared is one variable both specs observe.
type Shared struct {
	Old, New *spec.Var
}

// Hidden is a variable that is not observed, with the reason.
type Hidden struct {
	Name   string // as the spec that declares it spells it
	Spec   string // "old" or "new"
	Reason string // "only in old", "only in new", "types differ: 0..3 and bool"
}

// Observation is what the two specs share: the variables compared
// after every step, and the action labels matched between them.
type Observation struct {
	Shared []Shared // in OLD's variable order
	Hidden []Hidden // OLD's, then NEW's, each in variable order
	// OldToNew maps an OLD action index to the NEW action of the same
	// (mapped) label, or -1; NewToOld is the reverse.
	OldToNew, NewToOld []int
	// OnlyOld and OnlyNew are the action labels of one spec only.
	OnlyOld, OnlyNew []string
}

// Observe computes what old and new share. rename maps OLD names
// (variables and action labels) to NEW names; a name of rename that OLD
// does not declare is an error.
func Observe(old, new *spec.Model, rename map[string]string) (*Observation, error) {
	used := map[string]bool{}
	mapped := func(name string) string {
		if n, ok := rename[name]; ok {
			used[name] = true
			return n
		}
		return name
	}
	o := &Observation{}
	newVars := map[string]*spec.Var{}
	for _, v := range new.Vars {
		if v.Monitor == nil { // past-time monitors are history, not behaviour
			newVars[v.Name] = v
		}
	}
	seen := map[string]bool{}
	for _, v := range old.Vars {
		if v.Monitor != nil {
			continue
		}
		name := mapped(v.Name)
		if seen[name] {
			return nil, fmt.Errorf("--map: two variables of %s stand for %s of %s", old.Name, name, new.Name)
		}
		nv, ok := newVars[name]
		switch {
		case !ok:
			o.Hidden = append(o.Hidden, Hidden{Name: v.Name, Spec: "old", Reason: "only in old"})
		case !compatible(v.Type, nv.Type):
			seen[name] = true
			o.Hidden = append(o.Hidden, Hidden{Name: v.Name, Spec: "old",
				Reason: fmt.Sprintf("types differ: %s and %s", spec.TypeString(v.Type, -1), spec.TypeString(nv.Type, -1))})
		default:
			seen[name] = true
			o.Shared = append(o.Shared, Shared{Old: v, New: nv})
		}
	}
	for _, v := range new.Vars {
		if v.Monitor == nil && !seen[v.Name] {
			o.Hidden = append(o.Hidden, Hidden{Name: v.Name, Spec: "new", Reason: "only in new"})
		}
	}
	newActs := map[string]int{}
	for i, a := range new.Actions {
		newActs[a.Name] = i
	}
	o.OldToNew = make([]int, len(old.Actions))
	o.NewToOld = make([]int, len(new.Actions))
	for i := range o.NewToOld {
		o.NewToOld[i] = -1
	}
	for i, a := range old.Actions {
		j, ok := newActs[mapped(a.Name)]
		if !ok {
			o.OldToNew[i] = -1
			o.OnlyOld = append(o.OnlyOld, a.Name)
			continue
		}
		if o.NewToOld[j] >= 0 {
			return nil, fmt.Errorf("--map: two actions of %s stand for %s of %s", old.Name, new.Actions[j].Name, new.Name)
		}
		o.OldToNew[i], o.NewToOld[j] = j, i
	}
	for j, a := range new.Actions {
		if o.NewToOld[j] < 0 {
			o.OnlyNew = append(o.OnlyNew, a.Name)
		}
	}
	var unused []string
	for k := range rename {
		if !used[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		slices.Sort(unused)
		return nil, fmt.Errorf("--map %s: %s declares no variable or action %s", unused[0], old.Name, unused[0])
	}
	return o, nil
}

// compatible reports whether values of a and b compare slot by slot.
func compatible(a, b *spec.Type) bool {
	isInt := func(t *spec.Type) bool { return t.Kind == spec.RangeKind || t.Kind == spec.IntKind }
	if isInt(a) && isInt(b) {
		return true
	}
	if a.Kind != b.Kind || a.Width != b.Width {
		return false
	}
	switch a.Kind {
	case spec.BoolKind:
		return true
	case spec.EnumKind, spec.SymmetricKind:
		return slices.Equal(a.Names, b.Names)
	case spec.SetKind:
		return sameDomain(a.Elem, b.Elem)
	case spec.ArrayKind:
		return sameDomain(a.Index, b.Index) && compatible(a.Elem, b.Elem)
	case spec.RecordKind:
		if len(a.Fields) != len(b.Fields) || a.Seq != b.Seq {
			return false
		}
		for i, f := range a.Fields {
			g := b.Fields[i]
			if f.Name != g.Name || f.Offset != g.Offset || !compatible(f.Type, g.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// sameDomain reports whether the finite scalar types a and b have the
// same values with the same encoding (set elements, array indexes).
func sameDomain(a, b *spec.Type) bool {
	if a.Kind != b.Kind || a.Lo != b.Lo || a.Hi != b.Hi {
		return false
	}
	return slices.Equal(a.Names, b.Names)
}
