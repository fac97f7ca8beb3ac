package report

import (
	"strings"
	"testing"
)

// TestMarkdownFence checks that no line of the text closes the fence
// around it: a closing fence is a line of at least as many backticks.
func TestMarkdownFence(t *testing.T) {
	for _, text := range []string{"plain\n", "```\n# live\n", "a\n````` \nb", "``", ""} {
		out := MarkdownFence("text", text)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		fence := strings.TrimSuffix(lines[0], "text")
		if len(fence) < 3 || strings.Trim(fence, "`") != "" || lines[len(lines)-1] != fence {
			t.Fatalf("%q: fenced as %q", text, out)
		}
		for _, l := range lines[1 : len(lines)-1] {
			if t2 := strings.TrimSpace(l); len(t2) >= len(fence) && strings.Trim(t2, "`") == "" {
				t.Errorf("%q: line %q closes the fence %q", text, l, fence)
			}
		}
	}
}
