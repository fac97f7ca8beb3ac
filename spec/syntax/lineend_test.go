package syntax

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lineEndings rewrites the "\n" line ends of an LF source in the other
// styles the scanner accepts.
var lineEndings = []struct {
	name    string
	rewrite func(src []byte) []byte
}{
	{"CR", func(src []byte) []byte { return bytes.ReplaceAll(src, []byte("\n"), []byte("\r")) }},
	{"CRLF", func(src []byte) []byte { return bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")) }},
	{"mixed", func(src []byte) []byte {
		// Cycle through LF, CR and CRLF, line by line.
		var out []byte
		ends := [][]byte{[]byte("\n"), []byte("\r"), []byte("\r\n")}
		for i, line := range bytes.SplitAfter(src, []byte("\n")) {
			if l, ok := bytes.CutSuffix(line, []byte("\n")); ok {
				out = append(append(out, l...), ends[i%3]...)
			} else {
				out = append(out, line...)
			}
		}
		return out
	}},
}

// tokenPos is a token as the parser sees it: type, text and line:col.
type tokenPos struct {
	Type      int
	Value     string
	Line, Col int
}

func scanPositions(t *testing.T, path string, src []byte) (toks, comments []tokenPos) {
	t.Helper()
	ts, cs, err := scan(path, src)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	for _, tk := range ts.slice() {
		toks = append(toks, tokenPos{int(tk.Type), tk.Value, tk.Pos.Line, tk.Pos.Column})
	}
	for _, c := range cs {
		comments = append(comments, tokenPos{int(c.Type), lineFeeds(c.Value), c.Pos.Line, c.Pos.Column})
	}
	return toks, comments
}

// TestLineEndings checks that CR-only, CRLF and mixed line ends give the
// tokens, comments, positions, tree and formatted output of "\n": a `//`
// comment ends at any of them, and Format writes "\n" only.
func TestLineEndings(t *testing.T) {
	for _, path := range specFiles(t, false) {
		lf, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(lf, '\r') >= 0 {
			continue
		}
		wantToks, wantComments := scanPositions(t, path, lf)
		wantFile, err := Parse(path, lf)
		if err != nil {
			t.Fatal(err)
		}
		wantFormat := Format(wantFile)
		for _, le := range lineEndings {
			t.Run(path+"/"+le.name, func(t *testing.T) {
				src := le.rewrite(lf)
				toks, comments := scanPositions(t, path, src)
				if diff := cmp.Diff(wantToks, toks); diff != "" {
					t.Errorf("tokens (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantComments, comments); diff != "" {
					t.Errorf("comments (-want +got):\n%s", diff)
				}
				f, err := Parse(path, src)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(sexpr(wantFile), sexpr(f)); diff != "" {
					t.Errorf("tree (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(string(wantFormat), string(Format(f))); diff != "" {
					t.Errorf("Format (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestLineEndCases pins the positions and comments of small sources with
// each kind of line end, and the errors that a line end inside a string
// literal gives.
func TestLineEndCases(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		want     []tokenPos // tokens after "spec P", EOF excluded
		comments []string
		err      string
	}{
		{
			name: "CR ends a line comment",
			src:  "spec P\rconst A = 1 // one\rconst B = 2\r",
			want: []tokenPos{
				{int(tokKeyword), "const", 2, 1}, {int(tokIdent), "A", 2, 7}, {int(tokPunct), "=", 2, 9}, {int(tokInt), "1", 2, 11},
				{int(tokKeyword), "const", 3, 1}, {int(tokIdent), "B", 3, 7}, {int(tokPunct), "=", 3, 9}, {int(tokInt), "2", 3, 11},
			},
			comments: []string{"// one"},
		},
		{
			name: "CRLF counts one line",
			src:  "spec P\r\n\r\nconst A = 1 // one\r\nconst B = 2",
			want: []tokenPos{
				{int(tokKeyword), "const", 3, 1}, {int(tokIdent), "A", 3, 7}, {int(tokPunct), "=", 3, 9}, {int(tokInt), "1", 3, 11},
				{int(tokKeyword), "const", 4, 1}, {int(tokIdent), "B", 4, 7}, {int(tokPunct), "=", 4, 9}, {int(tokInt), "2", 4, 11},
			},
			comments: []string{"// one"},
		},
		{
			name: "LF CR is two lines",
			src:  "spec P\n\rconst A = 1",
			want: []tokenPos{
				{int(tokKeyword), "const", 3, 1}, {int(tokIdent), "A", 3, 7}, {int(tokPunct), "=", 3, 9}, {int(tokInt), "1", 3, 11},
			},
		},
		{
			name: "block comment keeps its lines",
			src:  "spec P /* a\rb\r\nc\nd */ const A = 1",
			want: []tokenPos{
				{int(tokKeyword), "const", 4, 6}, {int(tokIdent), "A", 4, 12}, {int(tokPunct), "=", 4, 14}, {int(tokInt), "1", 4, 16},
			},
			comments: []string{"/* a\nb\nc\nd */"},
		},
		{name: "CR in a string", src: "spec P\raction a { assert true \"x\ry\" }", err: "p.wrap:2:24: string literal not terminated"},
		{name: "CR after a backslash", src: "spec P\r\naction a { assert true \"x\\\r\ny\" }", err: "p.wrap:2:24: string literal not terminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("p.wrap", []byte(tt.src))
			if tt.err != "" {
				got := ""
				if err != nil {
					got = err.Error()
				}
				if diff := cmp.Diff(tt.err, got); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			toks, _ := scanPositions(t, "p.wrap", []byte(tt.src))
			if diff := cmp.Diff(tt.want, toks[2:len(toks)-1]); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.comments, commentTexts(f)); diff != "" {
				t.Errorf("comments (-want +got):\n%s", diff)
			}
		})
	}
}
