package lsp

import (
	"strings"
	"unicode/utf8"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// document is the text of one open file, with a table of line starts for
// converting between spec positions (1-based line, column in runes) and
// LSP positions (0-based line, column in UTF-16 code units). It is
// immutable: an edit makes a new document.
type document struct {
	uri     string
	version int
	text    string
	lines   []int // byte offset of the start of each line
}

func newDocument(uri string, version int, text string) *document {
	d := &document{uri: uri, version: version, text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

// line returns the text of 0-based line i without its newline.
func (d *document) line(i int) string {
	if i < 0 || i >= len(d.lines) {
		return ""
	}
	end := len(d.text)
	if i+1 < len(d.lines) {
		end = d.lines[i+1] - 1
	}
	return d.text[d.lines[i]:end]
}

// toLSP converts a spec position to an LSP position. An unknown position
// maps to the start of the file; a column past the end of its line to
// the line's end.
func (d *document) toLSP(p syntax.Position) position {
	if !p.IsValid() {
		return position{}
	}
	line := p.Line - 1
	if line >= len(d.lines) {
		line = len(d.lines) - 1
	}
	return position{Line: line, Character: utf16Prefix(d.line(line), p.Col-1)}
}

// utf16Prefix returns the UTF-16 length of the first n runes of s.
func utf16Prefix(s string, n int) int {
	units := 0
	for i := 0; i < n && len(s) > 0; i++ {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		units += utf16Len(r)
	}
	return units
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// offset converts an LSP position to a byte offset into the text,
// clamped to the line and to the text.
func (d *document) offset(p position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(d.lines) {
		return len(d.text)
	}
	s := d.line(p.Line)
	i, units := 0, 0
	for i < len(s) && units < p.Character {
		r, size := utf8.DecodeRuneInString(s[i:])
		units += utf16Len(r)
		i += size
	}
	return d.lines[p.Line] + i
}

// specPos converts an LSP position to a spec position (1-based line,
// column in runes).
func (d *document) specPos(p position) syntax.Position {
	off := d.offset(p)
	line := p.Line
	if line >= len(d.lines) {
		line = len(d.lines) - 1
	}
	if line < 0 {
		line = 0
	}
	return syntax.Position{Offset: off, Line: line + 1, Col: utf8.RuneCountInString(d.text[d.lines[line]:off]) + 1}
}

// lspPos converts a byte offset to an LSP position.
func (d *document) lspPos(off int) position {
	off = min(max(off, 0), len(d.text))
	line := 0
	lo, hi := 0, len(d.lines)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if d.lines[mid] <= off {
			line, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	units := 0
	for _, r := range d.text[d.lines[line]:off] {
		units += utf16Len(r)
	}
	return position{Line: line, Character: units}
}

// end returns the LSP position at the end of the text.
func (d *document) end() position { return d.lspPos(len(d.text)) }

// nameRange returns the range of a name of n runes starting at p.
func (d *document) nameRange(p syntax.Position, name string) lspRange {
	start := d.toLSP(p)
	if !p.IsValid() {
		return lspRange{Start: start, End: start}
	}
	s := d.line(start.Line)
	units := utf16Prefix(s, p.Col-1+utf8.RuneCountInString(name))
	return lspRange{Start: start, End: position{Line: start.Line, Character: units}}
}

// tokenRange returns the range of the token that starts at p: an
// identifier or number, a quoted string, or else one character. It is
// the range of a diagnostic, whose position is where the offending
// token starts.
func (d *document) tokenRange(p syntax.Position) lspRange {
	start := d.toLSP(p)
	if !p.IsValid() {
		return lspRange{Start: start, End: d.lspPos(min(len(d.line(0)), len(d.text)))}
	}
	s := d.line(start.Line)
	i := 0
	for n := 0; n < p.Col-1 && i < len(s); n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	rest := s[i:]
	n := 0
	switch {
	case rest == "":
	case isWordByte(rest[0]):
		for n < len(rest) && isWordByte(rest[n]) {
			n++
		}
	case rest[0] == '"':
		n = 1
		for n < len(rest) && rest[n] != '"' {
			n++
		}
		n = min(n+1, len(rest))
	default:
		_, n = utf8.DecodeRuneInString(rest)
	}
	units := 0
	for _, r := range rest[:n] {
		units += utf16Len(r)
	}
	return lspRange{Start: start, End: position{Line: start.Line, Character: start.Character + units}}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// apply returns the document after a change: the whole text, or a range
// replaced.
func (d *document) apply(version int, c textDocumentContentChangeEvent) *document {
	if c.Range == nil {
		return newDocument(d.uri, version, c.Text)
	}
	start, end := d.offset(c.Range.Start), d.offset(c.Range.End)
	if end < start {
		start, end = end, start
	}
	var b strings.Builder
	b.Grow(len(d.text) - (end - start) + len(c.Text))
	b.WriteString(d.text[:start])
	b.WriteString(c.Text)
	b.WriteString(d.text[end:])
	return newDocument(d.uri, version, b.String())
}

// wordAt returns the identifier around byte offset off and its start
// offset ("" when there is none).
func (d *document) wordAt(off int) (string, int) {
	off = min(max(off, 0), len(d.text))
	start, end := off, off
	for start > 0 && isWordByte(d.text[start-1]) {
		start--
	}
	for end < len(d.text) && isWordByte(d.text[end]) {
		end++
	}
	return d.text[start:end], start
}
