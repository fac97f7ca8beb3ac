package replay

import (
	"math/bits"
	"slices"

	"github.com/wrapcheck/wrapcheck/internal/jsonscan"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// The members of a run line the fast path reads, as bits.
const (
	memberStep = 1 << iota
	memberAction
	memberAsked
	memberState
	memberMonitors
)

// parseFast parses a run line of the common shape in one pass over its
// text, as [lineReader.parse] would: ok is false for any line it does not
// read (see package jsonscan), and for every line parse rejects, which
// parse then reads again to give its error. A line it accepts gives the
// Line parse gives (TestParseFastAgrees).
func (lr *lineReader) parseFast(text []byte) (Line, bool) {
	s := jsonscan.New(text)
	w, ok := lr.parseFastAt(&s)
	return w, ok && s.End()
}

// parseFastAt is parseFast of the object at s's position, which it
// leaves after the object: what follows is the caller's.
func (lr *lineReader) parseFastAt(s *jsonscan.Scanner) (Line, bool) {
	w := Line{line: lr.n, action: -1}
	clear(lr.seenVars)
	var arena []int64 // the values' slots
	if lr.reuse {
		arena = lr.arena[:0]
		w.vars, w.asked = lr.wantBuf[:0], lr.askedBuf[:0]
	}
	seen := 0
	ok := s.Object(func(k []byte) bool {
		bit := 0
		ok := true
		switch string(k) {
		case "step":
			bit = memberStep
			if !s.Lit("null") {
				_, ok = s.Int()
			}
		case "action":
			bit = memberAction
			if !s.Lit("null") {
				name, str := s.Str()
				a, found := lr.actions[string(name)]
				ok = str && found
				w.action = a
			}
		case "asked":
			bit = memberAsked
			ok = s.Lit("null") || lr.fastAsked(s, &w, &arena)
		case "state":
			bit = memberState
			ok = s.Lit("null") || lr.fastState(s, &w, &arena)
		case "monitors":
			bit = memberMonitors
			if !s.Lit("null") {
				if ok = s.Peek() == '{'; ok {
					_, ok = s.Skip()
				}
			}
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok {
		return Line{}, false
	}
	if w.action < 0 && lr.parsed > 0 {
		return Line{}, false
	}
	lr.sortVars(&w)
	slices.SortFunc(w.asked, func(a, b verdict.Answer) int { return a.Agent - b.Agent })
	if lr.reuse {
		lr.arena, lr.wantBuf, lr.askedBuf = arena, w.vars, w.asked
		if len(w.vars) == 0 {
			w.vars = nil
		}
		if len(w.asked) == 0 {
			w.asked = nil
		}
	}
	return w, true
}

// fastState reads the object of a line's state into w.vars, the values'
// slots appended to arena.
func (lr *lineReader) fastState(s *jsonscan.Scanner, w *Line, arena *[]int64) bool {
	return s.Object(func(k []byte) bool {
		r, found := lr.rankOf[string(k)]
		if !found {
			return false
		}
		if lr.seenVars[r/64]&(1<<uint(r%64)) != 0 {
			return false // a duplicate key
		}
		lr.seenVars[r/64] |= 1 << uint(r%64)
		v := lr.ranked[r]
		val, ok := lr.fastAppend(s, v.Type, arena)
		if w.vars == nil && !lr.reuse {
			w.vars = make([]wantVar, 0, len(lr.vars))
		}
		lr.at[r] = int32(len(w.vars))
		w.vars = append(w.vars, wantVar{v: v, val: val, rank: r})
		return ok
	})
}

// sortVars puts w.vars, read by fastState, in the order of their ranks
// (parse's order), without comparing: the ranks read are the bits of
// seenVars, and at holds where each is in w.vars. Under reuse the
// sorted vars go to the buffer of the line before's unsorted ones.
func (lr *lineReader) sortVars(w *Line) {
	if len(w.vars) < 2 {
		return
	}
	var out []wantVar
	if lr.reuse {
		out, lr.sortBuf = lr.sortBuf[:0], w.vars
	} else {
		out = make([]wantVar, 0, len(w.vars))
	}
	for i, word := range lr.seenVars {
		for word != 0 {
			r := i*64 + bits.TrailingZeros64(word)
			word &= word - 1
			out = append(out, w.vars[lr.at[r]])
		}
	}
	w.vars = out
}

// fastAsked reads the object of a line's answers into w.asked, as
// fastState reads the state.
func (lr *lineReader) fastAsked(s *jsonscan.Scanner, w *Line, arena *[]int64) bool {
	return s.Object(func(k []byte) bool {
		ag, found := lr.agents[string(k)]
		if !found || slices.ContainsFunc(w.asked, func(x verdict.Answer) bool { return x.Agent == ag }) {
			return false
		}
		val, ok := lr.fastAppend(s, lr.m.Agents[ag].Result, arena)
		w.asked = append(w.asked, verdict.Answer{Agent: ag, Value: val})
		return ok
	})
}

// fastAppend reads a value of type t onto the end of arena and returns
// its slots. A full arena is replaced by a new one, not grown, so that
// the values read before keep their slots.
func (lr *lineReader) fastAppend(s *jsonscan.Scanner, t *spec.Type, arena *[]int64) ([]int64, bool) {
	if len(*arena)+t.Width > cap(*arena) {
		*arena = make([]int64, 0, max(t.Width, min(lr.maxSlots, 1024)))
	}
	n := len(*arena)
	*arena = (*arena)[:n+t.Width]
	out := (*arena)[n : n+t.Width : n+t.Width]
	return out, fastValue(s, t, out, 0)
}

// fastValue reads a value of type t into out (t.Width slots), as
// encodeInto reads it from its decoded JSON.
func fastValue(s *jsonscan.Scanner, t *spec.Type, out []int64, depth int) bool {
	if depth >= jsonscan.MaxDepth {
		return false
	}
	switch t.Kind {
	case spec.BoolKind:
		switch {
		case s.Lit("true"):
			out[0] = 1
		case s.Lit("false"):
			out[0] = 0
		default:
			return false
		}
		return true
	case spec.EnumKind, spec.SymmetricKind:
		name, ok := s.Str()
		i := nameIndex(t.Names, name)
		if !ok || i < 0 {
			return false
		}
		out[0] = int64(i)
		return true
	case spec.ArrayKind:
		n, w := int(t.Index.Size()), t.Elem.Width
		if t.Index.Kind == spec.EnumKind || t.Index.Kind == spec.SymmetricKind {
			return fastKeyed(s, len(t.Index.Names), func(k []byte) int { return nameIndex(t.Index.Names, k) }, func(i int) bool {
				return fastValue(s, t.Elem, out[i*w:(i+1)*w], depth+1)
			})
		}
		i := 0
		ok := s.Array(func() bool {
			if i == n {
				return false
			}
			i++
			return fastValue(s, t.Elem, out[(i-1)*w:i*w], depth+1)
		})
		return ok && i == n
	case spec.RecordKind:
		if t.Chan && !t.Seq {
			empty, ok := s.Open('[')
			out[0] = 0
			return ok && empty
		}
		if t.Seq {
			elems := t.Fields[1]
			n, w := int(elems.Type.Index.Size()), elems.Type.Elem.Width
			spec.ZeroSlots(elems.Type, out[elems.Offset:elems.Offset+elems.Type.Width])
			i := 0
			ok := s.Array(func() bool {
				if i == n {
					return false
				}
				at := elems.Offset + i*w
				i++
				return fastValue(s, elems.Type.Elem, out[at:at+w], depth+1)
			})
			out[t.Fields[0].Offset] = int64(i)
			return ok
		}
		return fastKeyed(s, len(t.Fields), func(k []byte) int { return fieldIndex(t.Fields, k) }, func(i int) bool {
			fd := t.Fields[i]
			return fastValue(s, fd.Type, out[fd.Offset:fd.Offset+fd.Type.Width], depth+1)
		})
	case spec.SetKind:
		var mask int64
		var el [1]int64
		ok := s.Array(func() bool {
			if !fastValue(s, t.Elem, el[:], depth+1) {
				return false
			}
			mask |= 1 << uint(el[0]-t.Elem.Lo)
			return true
		})
		out[0] = mask
		return ok
	}
	v, ok := s.Int()
	if !ok || v < t.Lo || v > t.Hi {
		return false
	}
	out[0] = v
	return true
}

// fastKeyed reads an object with each of n keys once (at most 64 of
// them; index gives a key's number, -1 for no key), calling value with
// each key's number.
func fastKeyed(s *jsonscan.Scanner, n int, index func(k []byte) int, value func(i int) bool) bool {
	if n > 64 {
		return false
	}
	var seen uint64
	ok := s.Object(func(k []byte) bool {
		i := index(k)
		if i < 0 || seen&(1<<uint(i)) != 0 {
			return false
		}
		seen |= 1 << uint(i)
		return value(i)
	})
	return ok && seen == 1<<uint(n)-1 || ok && n == 64 && seen == ^uint64(0)
}

func nameIndex(names []string, k []byte) int {
	for i, n := range names {
		if n == string(k) {
			return i
		}
	}
	return -1
}

func fieldIndex(fields []*spec.Field, k []byte) int {
	for i, f := range fields {
		if f.Name == string(k) {
			return i
		}
	}
	return -1
}
