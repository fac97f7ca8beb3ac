package spec

// choose, forall, exists and count range over every value of a finite
// type: a scalar type (bool, a range, an enum, a symmetric type), and
// also a set, array or record type over such types (2^|T| subsets of T,
// |σ|^|τ| arrays [τ]σ, the product of the fields' values). The bound
// variable takes Type.Width frame slots; the engine enumerates the
// values slot by slot, the last slot fastest (see [DomainLeaves]).

// MaxDomainValues is the largest number of values a choose or a
// quantifier over a set, array or record type may range over.
const MaxDomainValues = 1 << 16

// NextValue advances vals, the slots of a value whose slots range over
// leaves (as [DomainLeaves] gives them), to the next value, the last slot
// fastest; it reports false after the last value, with vals back at the
// first.
func NextValue(vals []int64, leaves [][2]int64) bool {
	for i := len(vals) - 1; i >= 0; i-- {
		if vals[i] < leaves[i][1] {
			vals[i]++
			return true
		}
		vals[i] = leaves[i][0]
	}
	return false
}

// DomainLeaves returns the range of values of each scalar slot of a
// value of t, in slot order: bool 0..1, a range, enum or symmetric type
// Lo..Hi, a set every bitmask 0..2^n-1. The values of t are all the
// combinations. ok is false when t is not such a type or a set has more
// than 62 elements or t holds a sequence (an extension).
func DomainLeaves(t *Type) (leaves [][2]int64, ok bool) {
	var walk func(t *Type) bool
	walk = func(t *Type) bool {
		switch t.Kind {
		case BoolKind:
			leaves = append(leaves, [2]int64{0, 1})
		case RangeKind, EnumKind, SymmetricKind:
			leaves = append(leaves, [2]int64{t.Lo, t.Hi})
		case SetKind:
			if t.Elem == nil || !t.Elem.IsFinite() || t.Elem.Size() > 62 {
				return false
			}
			leaves = append(leaves, [2]int64{0, 1<<t.Elem.Size() - 1})
		case ArrayKind:
			if t.Index == nil || t.Elem == nil {
				return false
			}
			for i := int64(0); i < t.Index.Size(); i++ {
				if !walk(t.Elem) {
					return false
				}
			}
		case RecordKind:
			if t.Seq {
				// every combination of slots is not a sequence: the
				// slots past len must hold the zero value
				return false
			}
			for _, f := range t.Fields {
				if !walk(f.Type) {
					return false
				}
			}
		default:
			return false
		}
		return len(leaves) <= MaxDomainValues
	}
	if t == nil || !walk(t) {
		return nil, false
	}
	return leaves, true
}

// DomainSize returns the number of values of t (see [DomainLeaves]),
// capped at MaxDomainValues+1; ok is false when t cannot be enumerated.
func DomainSize(t *Type) (n int64, ok bool) {
	leaves, ok := DomainLeaves(t)
	if !ok {
		return 0, false
	}
	n = 1
	for _, l := range leaves {
		k := l[1] - l[0] + 1
		if k <= 0 {
			return 0, true
		}
		if k > MaxDomainValues || n*k > MaxDomainValues {
			return MaxDomainValues + 1, true
		}
		n *= k
	}
	return n, true
}

// ZeroSlots writes the zero value of t into out (t.Width slots): each
// scalar at its lowest value (false, the first member or identity, the
// empty set, a range's lower bound), as a variable without a start value
// begins and as a sequence holds the slots past its length.
func ZeroSlots(t *Type, out []int64) {
	switch t.Kind {
	case ArrayKind:
		w := t.Elem.Width
		for i := range int(t.Index.Size()) {
			ZeroSlots(t.Elem, out[i*w:(i+1)*w])
		}
	case RecordKind:
		for _, f := range t.Fields {
			ZeroSlots(f.Type, out[f.Offset:f.Offset+f.Type.Width])
		}
	case SetKind, BoolKind:
		out[0] = 0
	default:
		out[0] = t.Lo
	}
}
