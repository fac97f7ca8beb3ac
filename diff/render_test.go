package diff

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/verify"
)

// inline reads s as CommonMark inline text, as far as escapes and code
// spans go: text is what renders outside code spans (a code span is
// "\x00"), codes the contents of the code spans, and active reports
// whether an unescaped Markdown-active character is left in text.
func inline(s string) (text string, codes []string, active bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			// The closing run: exactly n backticks.
			for j := i + n; j < len(s); {
				if s[j] != '`' {
					j++
					continue
				}
				m := 0
				for j+m < len(s) && s[j+m] == '`' {
					m++
				}
				if m == n {
					code := strings.ReplaceAll(s[i+n:j], "\n", " ")
					if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
						code = code[1 : len(code)-1]
					}
					codes = append(codes, code)
					b.WriteByte(0)
					i = j + m
					goto next
				}
				j += m
			}
			b.WriteString(s[i : i+n])
			active = true
			i += n
			continue
		case strings.IndexByte("\\`*_[]<>&|~$@#!:", c) >= 0:
			active = true
		}
		b.WriteByte(c)
		i++
	next:
	}
	return b.String(), codes, active
}

// hostile are names that try to close a code span, start markup or a
// line, or mention someone.
var hostile = []string{"a`b.wrap", "``x", "`", "x` **bold** [l](http://e) `y", "a | b", "a\n## heading\n<img src=x>",
	"@org/team", " ", "` `", "\\`", "$x$ ~~s~~ :smile: &amp; <b>"}

// TestMarkdownEscape checks that every name and text the Markdown of a
// comparison holds renders as itself: a code span of mdCode reads back
// as the string (control characters escaped), text of mdText reads back
// with no Markdown-active character left, on hostile strings and random
// ones; and the comment's headline for hostile file names holds them in
// code spans and nothing else.
func TestMarkdownEscape(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 14))
	const alphabet = "`\\|*_ a<>&[]()!#@$~:\n"
	strs := append([]string(nil), hostile...)
	for range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		strs = append(strs, b.String())
	}
	for _, s := range strs {
		want := report.Escape(s)
		if s == "" {
			if report.MarkdownCode(s, false) != "" || report.MarkdownText(s) != "" {
				t.Errorf("the empty string renders as %q, %q", report.MarkdownCode(s, false), report.MarkdownText(s))
			}
			continue
		}
		text, codes, active := inline(report.MarkdownCode(s, false))
		if text != "\x00" || len(codes) != 1 || codes[0] != want || active {
			t.Errorf("report.MarkdownCode(%q) = %q reads as text %q, codes %q", s, report.MarkdownCode(s, false), text, codes)
		}
		// In a table cell GitHub reads \| as | before the code span.
		cell := strings.ReplaceAll(report.MarkdownCode(s, true), `\|`, "|")
		if strings.Contains(strings.ReplaceAll(report.MarkdownCode(s, true), `\|`, ""), "|") {
			t.Errorf("report.MarkdownCode(%q, cell) = %q holds an unescaped pipe", s, report.MarkdownCode(s, true))
		}
		if text, codes, _ := inline(cell); text != "\x00" || len(codes) != 1 || codes[0] != want {
			t.Errorf("report.MarkdownCode(%q, cell) = %q reads as text %q, codes %q", s, report.MarkdownCode(s, true), text, codes)
		}
		text, codes, active = inline(report.MarkdownText(s))
		if text != want || len(codes) != 0 || active {
			t.Errorf("report.MarkdownText(%q) = %q reads as text %q, codes %q, active %v", s, report.MarkdownText(s), text, codes, active)
		}
		if strings.ContainsAny(report.MarkdownCode(s, false)+report.MarkdownText(s), "\n\r") {
			t.Errorf("%q: a line break passes", s)
		}
	}

	p := examplePairs[0]
	res, err := Compare(context.Background(), load(t, p.old, nil), load(t, p.new, nil), Options{Verify: verify.Options{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hostile); i++ {
		var b bytes.Buffer
		if err := res.Markdown(&b, Names{Old: hostile[i], New: hostile[i+1]}); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(b.String(), "\n")
		text, codes, _ := inline(head)
		if d := cmp.Diff([]string{report.Escape(hostile[i]), report.Escape(hostile[i+1])}, codes); text != "### wrapcheck diff: \x00 → \x00" || d != "" {
			t.Errorf("names %q, %q: headline %q reads as %q, code spans (-want +got):\n%s", hostile[i], hostile[i+1], head, text, d)
		}
	}
}
