package report

import "strings"

// markdownActive are the ASCII characters that can start or end Markdown
// (CommonMark and GitHub's extensions: emphasis, code, links, HTML and
// entities, tables, strikethrough, math, mentions, references, emoji).
const markdownActive = "\\`*_[]<>&|~$@#!:"

// MarkdownText returns s as Markdown text that renders as s: control
// characters written as escapes ([Escape]), so s cannot start a
// line, and every Markdown-active character backslash-escaped (a valid
// escape in a table cell too).
func MarkdownText(s string) string {
	s = Escape(s)
	if !strings.ContainsAny(s, markdownActive) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune(markdownActive, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MarkdownCode returns s as a Markdown code span that renders as s: control
// characters written as escapes ([Escape]), delimited by one
// backtick more than the longest run of backticks in s, and padded with
// spaces when s starts or ends with a backtick or a space (which the
// span would strip); nothing for "". In a table cell (cell), a pipe is escaped: GitHub
// splits cells before it reads code spans.
func MarkdownCode(s string, cell bool) string {
	s = Escape(s)
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	longest := longestBackticks(s)
	if s == "" {
		return "" // no code span is empty
	}
	fence := strings.Repeat("`", longest+1)
	if strings.Trim(s, " ") != "" && (strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ")) {
		s = " " + s + " " // the span strips one space each side (not when all are spaces)
	}
	return fence + s + fence
}

// MarkdownFence returns text as a fenced code block of language lang:
// its fence is longer than any run of backticks in text, so no line of
// text can close it.
func MarkdownFence(lang, text string) string {
	longest := longestBackticks(text)
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + lang + "\n" + text + fence + "\n"
}

// longestBackticks is the length of the longest run of backticks in s.
func longestBackticks(s string) int {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
