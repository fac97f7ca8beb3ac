// Package jsonmut changes JSON text in the ways a hand-written or hostile
// input differs from a well-formed one, for the tests that hold a fast
// decoder (package jsonscan) to encoding/json.
package jsonmut

import (
	"bytes"
	"math/rand/v2"
	"slices"
)

// Mutate returns text changed in one of the ways a hand-written or
// hostile line differs from check's: white space, keys reordered or
// repeated or in other case, escapes, other number forms, bytes flipped,
// cut short.
func Mutate(text []byte, rnd *rand.Rand) []byte {
	b := slices.Clone(text)
	if len(b) == 0 {
		return append(b, "{}"[rnd.IntN(2)])
	}
	pick := func(set string) int {
		var at []int
		for i, c := range b {
			if bytes.IndexByte([]byte(set), c) >= 0 {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return -1
		}
		return at[rnd.IntN(len(at))]
	}
	insert := func(i int, s string) []byte { return slices.Concat(b[:i], []byte(s), b[i:]) }
	switch rnd.IntN(14) {
	case 0: // white space around a token
		if i := pick(",:{}[]"); i >= 0 {
			return insert(i, []string{" ", "\n", "\t", "\r\n "}[rnd.IntN(4)])
		}
	case 1: // a byte flipped
		b[rnd.IntN(len(b))] ^= byte(1 << rnd.IntN(8))
	case 2: // cut short
		return b[:rnd.IntN(len(b))]
	case 3: // a key repeated
		if i := pick("{"); i >= 0 && i+1 < len(b) && b[i+1] == '"' {
			end := bytes.IndexAny(b[i+1:], ",}")
			if end > 0 {
				return insert(i+1, string(b[i+1:i+1+end])+",")
			}
		}
	case 4: // a key's first letter upper case
		if i := pick("\""); i >= 0 && i+1 < len(b) && b[i+1] >= 'a' && b[i+1] <= 'z' {
			b[i+1] -= 'a' - 'A'
		}
	case 5: // an escape in a string
		if i := pick("\""); i >= 0 && i+1 < len(b) && b[i+1] >= 'a' && b[i+1] <= 'z' {
			return slices.Concat(b[:i+1], []byte(`\u00`), []byte{"0123456789abcdef"[b[i+1]>>4], "0123456789abcdef"[b[i+1]&15]}, b[i+2:])
		}
	case 6: // another form of a number
		if i := pick("0123456789"); i >= 0 {
			return insert(i+1, []string{".0", "e0", "0", "00000000000000000000", "E1"}[rnd.IntN(5)])
		}
	case 7: // a minus sign
		if i := pick("0123456789"); i >= 0 {
			return insert(i, []string{"-", "-0", "+"}[rnd.IntN(3)])
		}
	case 8: // a value replaced
		if i := pick(":,["); i >= 0 {
			return insert(i+1, []string{"null,", "true,", "[],", "{},", `"x",`, "-1,", "99999,"}[rnd.IntN(7)])
		}
	case 9: // an element dropped or doubled
		if i := pick("["); i >= 0 {
			if end := bytes.IndexAny(b[i+1:], ",]"); end > 0 {
				if rnd.IntN(2) == 0 {
					return insert(i+1, string(b[i+1:i+1+end])+",")
				}
				return slices.Concat(b[:i+1], b[i+1+end+1:])
			}
		}
	case 10: // more after the object
		return append(b, []string{" ", "{}", " x", "\n\n"}[rnd.IntN(4)]...)
	case 11: // a non-ASCII byte in a string
		if i := pick("\""); i >= 0 {
			return insert(i+1, []string{"\u00e9", "\xff", "\u2028"}[rnd.IntN(3)])
		}
	case 12: // an unknown member
		return insert(1, `"extra":1,`)
	case 13: // two mutations
		return Mutate(Mutate(b, rnd), rnd)
	}
	return b
}
