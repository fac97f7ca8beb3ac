package syntax

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the lexer. Keywords have their own type so that the
// grammar's @Ident never captures a reserved word.
const (
	tokEOF     = lexer.EOF
	tokComment = lexer.EOF - 1 - iota
	tokIdent
	tokKeyword
	tokInt
	tokString
	tokPunct
)

// IsKeyword reports whether name is a reserved word of the language.
func IsKeyword(name string) bool { return keywords[name] }

// lexDef is the participle lexer definition. It is stateless.
type lexDef struct{}

var _ lexer.BytesDefinition = lexDef{}

func (lexDef) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":     tokEOF,
		"Comment": tokComment,
		"Ident":   tokIdent,
		"Keyword": tokKeyword,
		"Int":     tokInt,
		"String":  tokString,
		"Punct":   tokPunct,
	}
}

func (d lexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexBytes(filename, b)
}

func (lexDef) LexBytes(filename string, src []byte) (lexer.Lexer, error) {
	toks, _, err := scan(filename, src)
	if err != nil {
		return nil, err
	}
	return &sliceLexer{cursor{toks: toks}}, nil
}

// sliceLexer replays scanned tokens to participle, through a cursor;
// the last one is EOF.
type sliceLexer struct{ c cursor }

func (l *sliceLexer) Next() (lexer.Token, error) { return *l.c.Next(), nil }

// tokenStream is what the recursive-descent and expression parsers read:
// a cursor over the scanned tokens, or, inside the participle grammar's
// hooks, participle's PeekingLexer (peeking). Next at EOF stays there.
type tokenStream interface {
	Peek() *lexer.Token
	Next() *lexer.Token
	mark() streamMark
	reset(streamMark)
}

// streamMark is a position of a tokenStream to return to.
type streamMark struct {
	i  int              // cursor's
	cp lexer.Checkpoint // peeking's
}

// cursor is a tokenStream over the scanned tokens (tokenList says why
// the parsers do not read participle's PeekingLexer, a copy).
type cursor struct {
	toks *tokenList
	i    int
}

func (c *cursor) Peek() *lexer.Token { return c.toks.at(c.i) }

func (c *cursor) Next() *lexer.Token {
	t := c.toks.at(c.i)
	if c.i < c.toks.len()-1 {
		c.i++
	}
	return t
}

func (c *cursor) mark() streamMark   { return streamMark{i: c.i} }
func (c *cursor) reset(m streamMark) { c.i = m.i }

// peeking is participle's PeekingLexer as a tokenStream.
type peeking struct{ *lexer.PeekingLexer }

func (p peeking) mark() streamMark   { return streamMark{cp: p.MakeCheckpoint()} }
func (p peeking) reset(m streamMark) { p.LoadCheckpoint(m.cp) }

// scanError is a lexical error.
type scanError struct {
	pos lexer.Position
	msg string
}

func (e *scanError) Error() string { return fmt.Sprintf("%s: %s", e.pos, e.msg) }

// scanner turns source bytes into tokens. Columns count runes.
type scanner struct {
	filename string
	src      []byte
	off      int
	line     int
	col      int
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.filename, Offset: s.off, Line: s.line, Column: s.col}
}

// advance moves over one rune and returns it. A line ends at "\n", at
// "\r\n" (the "\r" is the last rune of its line) and at a "\r" that no
// "\n" follows, so CR-only, CRLF and LF files get the same lines.
func (s *scanner) advance() rune {
	r, n := rune(s.src[s.off]), 1
	if r >= utf8.RuneSelf {
		r, n = utf8.DecodeRune(s.src[s.off:])
	}
	s.off += n
	if r == '\n' || r == '\r' && s.peek(0) != '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
	return r
}

// isLineEnd reports whether c starts or ends a line break ("\n" or "\r").
func isLineEnd(c byte) bool { return c == '\n' || c == '\r' }

func (s *scanner) peek(k int) byte {
	if s.off+k < len(s.src) {
		return s.src[s.off+k]
	}
	return 0
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// MaxIdentLen is the longest identifier, in characters: a longer one is an
// error, so that no message echoes an unbounded name.
const MaxIdentLen = 1000

// tokenChunk is the number of tokens in a chunk of a tokenList (1 MiB).
const tokenChunk = 1 << 14

// tokenList is the scanner's tokens, the last one EOF, kept in chunks of
// tokenChunk. One slice grown by append would copy itself as it doubles
// (and participle's PeekingLexer would copy it again), and the copy of a
// large one (hundreds of MB for a spec of 15 MB) is one step the Go
// runtime cannot preempt: the collector, waiting on it, holds up every
// other goroutine (the deadline's among them) for a second or more.
type tokenList struct {
	chunks [][]lexer.Token // each of tokenChunk tokens but the last
	n      int
}

// add appends t and returns where it is kept.
func (l *tokenList) add(t lexer.Token) *lexer.Token {
	last := len(l.chunks) - 1
	if last < 0 || len(l.chunks[last]) == tokenChunk {
		l.chunks = append(l.chunks, nil)
		last++
	}
	l.chunks[last] = append(l.chunks[last], t)
	l.n++
	return &l.chunks[last][len(l.chunks[last])-1]
}

// len is the number of tokens.
func (l *tokenList) len() int { return l.n }

// at returns the i-th token.
func (l *tokenList) at(i int) *lexer.Token { return &l.chunks[i/tokenChunk][i%tokenChunk] }

// scan returns the tokens of src, ending with EOF, and its comments
// separately. It stops early, with an EOF, after a token at which the
// parser will certainly fail (see chainCounter).
func scan(filename string, src []byte) (toks *tokenList, comments []lexer.Token, err error) {
	return scanTokens(filename, src, true)
}

// scanTokens is scan; with stopEarly false it scans the whole of src.
func scanTokens(filename string, src []byte, stopEarly bool) (toks *tokenList, comments []lexer.Token, err error) {
	s := &scanner{filename: filename, src: src, line: 1, col: 1}
	toks = new(tokenList)
	var chain chainCounter
	for {
		for s.off < len(src) {
			c := src[s.off]
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
				break
			}
			s.advance()
		}
		start := s.pos()
		if s.off >= len(src) {
			toks.add(lexer.Token{Type: tokEOF, Pos: start})
			return toks, comments, nil
		}
		c := src[s.off]
		typ := tokPunct
		switch {
		case isLetter(c):
			for s.off < len(src) && (isLetter(src[s.off]) || isDigit(src[s.off])) {
				s.off++
				s.col++
			}
			typ = tokIdent
			if s.off-start.Offset > MaxIdentLen {
				return nil, nil, &scanError{start, fmt.Sprintf("identifier %s... is longer than %d characters", src[start.Offset:start.Offset+20], MaxIdentLen)}
			}
			if keywords[string(src[start.Offset:s.off])] {
				typ = tokKeyword
			}
		case isDigit(c):
			for s.off < len(src) && isDigit(src[s.off]) {
				s.off++
				s.col++
			}
			typ = tokInt
		case c == '/' && s.peek(1) == '/':
			for s.off < len(src) && !isLineEnd(src[s.off]) {
				s.advance()
			}
			comments = append(comments, lexer.Token{Type: tokComment, Value: string(src[start.Offset:s.off]), Pos: start})
			continue
		case c == '/' && s.peek(1) == '*':
			s.advance()
			s.advance()
			for {
				if s.off >= len(src) {
					return nil, nil, &scanError{start, "comment not terminated"}
				}
				if src[s.off] == '*' && s.peek(1) == '/' {
					s.advance()
					s.advance()
					break
				}
				s.advance()
			}
			comments = append(comments, lexer.Token{Type: tokComment, Value: string(src[start.Offset:s.off]), Pos: start})
			continue
		case c == '"':
			s.advance()
			for {
				if s.off >= len(src) || isLineEnd(src[s.off]) {
					return nil, nil, &scanError{start, "string literal not terminated"}
				}
				r := s.advance()
				if r == '"' {
					break
				}
				if r == '\\' && s.off < len(src) && !isLineEnd(src[s.off]) {
					s.advance()
				}
			}
			typ = tokString
		default:
			n := 0
			switch c {
			case ':', '=', '!', '<', '>':
				if (c == '<' || c == '>') && s.peek(1) == c {
					n = 2 // << >> (extension)
				} else if s.peek(1) == '=' {
					n = 2
				} else if c == '=' && s.peek(1) == '>' {
					n = 2
				} else {
					n = 1 // ! alone is a send (extension)
				}
			case '.':
				n = 1
				if s.peek(1) == '.' {
					n = 2
				}
			case '(', ')', '[', ']', '{', '}', ',', ';', '+', '-', '*', '/', '%', '&', '|', '^', '?':
				n = 1
			}
			if n == 0 {
				r, _ := utf8.DecodeRune(src[s.off:])
				if r == utf8.RuneError {
					return nil, nil, &scanError{start, "invalid UTF-8 encoding"}
				}
				return nil, nil, &scanError{start, fmt.Sprintf("invalid character %q", r)}
			}
			s.off += n
			s.col += n
		}
		if chain.next(toks.add(lexer.Token{Type: typ, Value: string(src[start.Offset:s.off]), Pos: start})) && stopEarly {
			// The parser fails at this token at the latest (see
			// chainCounter): the rest need not become tokens.
			toks.add(lexer.Token{Type: tokEOF, Pos: s.pos()})
			return toks, comments, nil
		}
	}
}
