package report

import (
	"fmt"
	"strings"
	"unicode"
)

// Escape returns s with every character that could act on a terminal or a
// log reader written as a Go-style escape: control characters (C0, DEL,
// C1; `\n`, `\r`, `\t`, `\a` and `\x1b` among them), the line and paragraph
// separators and the bidirectional overrides. User data (an assert
// message, a file name) passed through it cannot start a line, so it
// cannot forge a CI workflow command such as `::error`, and cannot send a
// terminal escape. A string without such characters is returned as is.
func Escape(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\a':
			b.WriteString(`\a`)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether Escape writes r as an escape.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' || r == '\ufeff'
}
