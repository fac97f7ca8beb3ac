package syntax

import (
	"fmt"
	"sort"
	"strings"
)

// Position is a location in a source file. Line and Col are 1-based; Col
// counts runes, as participle does. The zero Position is "unknown".
type Position struct {
	Filename string
	Offset   int // byte offset, 0-based
	Line     int
	Col      int
}

// IsValid reports whether the position is known.
func (p Position) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col (or a shorter form when
// parts are unknown).
func (p Position) String() string {
	s := p.Filename
	if p.IsValid() {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	if s == "" {
		s = "-"
	}
	return s
}

// Before reports whether p comes before q in the same file.
func (p Position) Before(q Position) bool {
	if p.Filename != q.Filename {
		return p.Filename < q.Filename
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is one front-end error: a message at a position, with optional
// secondary lines (such as "declared here") that carry their own positions.
type Error struct {
	Pos       Position
	Msg       string
	Secondary []Note
}

// Note is a secondary line of an [Error].
type Note struct {
	Pos Position
	Msg string
}

// Error formats the error as "file:line:col: msg", followed by one
// tab-indented line per secondary note.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	b.WriteString(e.Msg)
	for _, n := range e.Secondary {
		b.WriteString("\n\t")
		b.WriteString(n.Pos.String())
		b.WriteString(": ")
		b.WriteString(n.Msg)
	}
	return b.String()
}

// MaxErrors is the number of errors after which the front end stops and
// reports "too many errors".
const MaxErrors = 10

// ErrorList is a list of front-end errors. Its zero value is an empty list
// ready to use. It is not safe for concurrent use.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Position, msg string, notes ...Note) {
	*l = append(*l, &Error{Pos: pos, Msg: msg, Secondary: notes})
}

// Len, Less and Swap implement sort.Interface (by position).
func (l ErrorList) Len() int           { return len(l) }
func (l ErrorList) Less(i, j int) bool { return l[i].Pos.Before(l[j].Pos) }
func (l ErrorList) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }

// Sort sorts the list by position and keeps only the first error of each
// line, so that one mistake gives one message.
func (l *ErrorList) Sort() {
	sort.Stable(*l)
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 {
			p := (*l)[i-1].Pos
			if p.Filename == e.Pos.Filename && p.Line == e.Pos.Line {
				continue
			}
		}
		out = append(out, e)
	}
	*l = out
}

// Error prints at most [MaxErrors] errors, one per line, then
// "too many errors" if there were more.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == MaxErrors {
			b.WriteString("too many errors")
			return b.String()
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list and the sorted list otherwise. Never
// return a non-nil empty list as an error.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}
