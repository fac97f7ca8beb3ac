// Package jsonscan reads the common shapes of JSON text in one pass,
// without allocating: objects and arrays, strings of printable ASCII
// without escapes, integers without fraction or exponent, and the
// literals. It is the fast path of decoders that keep encoding/json as
// their reference: every method reports ok false on anything it does
// not read (an escape, a byte outside printable ASCII in a string, a
// number that is not a plain integer, a duplicate key it cannot rule
// out, nesting past [MaxDepth], text that is not JSON), and the caller
// then decodes the whole input again with encoding/json, which accepts
// it or gives the error. So the fast path decides nothing on its own:
// an input it accepts is one encoding/json reads the same way, and every
// other input gets encoding/json's answer.
package jsonscan

import "bytes"

// MaxDepth is the deepest nesting [Scanner.Skip] reads.
const MaxDepth = 64

// maxKeys is the most keys of one object whose duplicates Skip rules out.
const maxKeys = 16

// Scanner reads a JSON text from its front.
type Scanner struct {
	b []byte
	i int
}

// New returns a Scanner of b.
func New(b []byte) Scanner { return Scanner{b: b} }

func (s *Scanner) ws() {
	b, i := s.b, s.i // locals: the loop keeps them in registers
	for i < len(b) && space[b[i]] {
		i++
	}
	s.i = i
}

// space holds the bytes of JSON's white space.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// Offset returns how many bytes of the input the Scanner has read.
func (s *Scanner) Offset() int { return s.i }

// Peek returns the next byte after white space, 0 at the end.
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i == len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// Byte consumes c, after white space, and reports whether it was next.
func (s *Scanner) Byte(c byte) bool {
	if s.Peek() != c {
		return false
	}
	s.i++
	return true
}

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.b)
}

// Open consumes c ('{' or '[') and reports whether the object or array
// it opens is empty (its closing byte then consumed too).
func (s *Scanner) Open(c byte) (empty, ok bool) {
	if !s.Byte(c) {
		return false, false
	}
	return s.Byte(c + 2), true // '{'+2 = '}', '['+2 = ']'
}

// More consumes what follows an element of an object or array opened
// by c: a comma (more true) or the closing byte (more false).
func (s *Scanner) More(c byte) (more, ok bool) {
	switch {
	case s.Byte(','):
		return true, true
	case s.Byte(c + 2):
		return false, true
	}
	return false, false
}

// Object reads an object, calling member after each key and its colon
// (member reads the value), and reports whether it was read whole and
// member returned true each time.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	empty, ok := s.Open('{')
	for ok && !empty {
		var k []byte
		if k, ok = s.Key(); !ok || !member(k) {
			return false
		}
		var more bool
		more, ok = s.More('{')
		empty = !more
	}
	return ok
}

// Array reads an array, calling elem to read each element, as Object.
func (s *Scanner) Array(elem func() bool) bool {
	empty, ok := s.Open('[')
	for ok && !empty {
		if !elem() {
			return false
		}
		var more bool
		more, ok = s.More('[')
		empty = !more
	}
	return ok
}

// Str reads a string of printable ASCII without escapes and returns its
// body, a slice of the input.
func (s *Scanner) Str() ([]byte, bool) {
	if !s.Byte('"') {
		return nil, false
	}
	b, start := s.b, s.i
	i := start
	for i < len(b) && plain[b[i]] {
		i++
	}
	if i == len(b) || b[i] != '"' {
		s.i = i
		return nil, false // the end, an escape, a control byte or not ASCII
	}
	s.i = i + 1
	return b[start:i], true
}

// plain holds the bytes a string the Scanner reads may hold as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Key reads an object's key and the colon after it.
func (s *Scanner) Key() ([]byte, bool) {
	k, ok := s.Str()
	return k, ok && s.Byte(':')
}

// Int reads an integer: an optional minus, then 0 or a digit string
// without leading zero, not followed by a fraction or an exponent, in
// the range of int64.
func (s *Scanner) Int() (int64, bool) {
	s.ws()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	start := s.i
	var u uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if s.i-start >= 18 { // past 18 digits the sum could overflow
			return 0, false
		}
		u = u*10 + uint64(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - start
	if n == 0 || n > 1 && s.b[start] == '0' {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// Lit consumes the literal w (true, false or null) and reports whether
// it was next.
func (s *Scanner) Lit(w string) bool {
	s.ws()
	if !bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		return false
	}
	end := s.i + len(w)
	if end < len(s.b) && isIdent(s.b[end]) {
		return false
	}
	s.i = end
	return true
}

// keySig is a bit of 64 that equal keys share.
func keySig(k []byte) uint64 {
	h := uint(len(k)) * 7
	if len(k) > 0 {
		h += uint(k[0]) + uint(k[len(k)-1])*3
	}
	return 1 << (h % 64)
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Skip reads one value of any shape the Scanner reads and returns it, a
// slice of the input without the white space around it; ok is false
// also for an object with a key twice, or more keys than it compares.
func (s *Scanner) Skip() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip(0) {
		return nil, false
	}
	return s.b[start:s.i], true
}

func (s *Scanner) skip(depth int) bool {
	if depth >= MaxDepth {
		return false
	}
	switch s.Peek() {
	case '{':
		var keys [maxKeys][]byte
		var sigs uint64 // a bit per key's signature: most keys need no comparison
		n := 0
		return s.Object(func(k []byte) bool {
			if n == maxKeys {
				return false
			}
			sig := keySig(k)
			if sigs&sig != 0 {
				for _, x := range keys[:n] {
					if bytes.Equal(x, k) {
						return false
					}
				}
			}
			sigs |= sig
			keys[n] = k
			n++
			return s.skip(depth + 1)
		})
	case '[':
		return s.Array(func() bool { return s.skip(depth + 1) })
	case '"':
		_, ok := s.Str()
		return ok
	case 't':
		return s.Lit("true")
	case 'f':
		return s.Lit("false")
	case 'n':
		return s.Lit("null")
	}
	_, ok := s.Int()
	return ok
}
