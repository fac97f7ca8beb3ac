package syntax

import (
	"strings"
	"testing"
)

// TestIdentifierLength: an identifier of MaxIdentLen characters is
// accepted; a longer one is an error at its start that echoes only its
// first characters (a 5 MB name used to be printed whole).
func TestIdentifierLength(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string // "": no error
	}{
		{MaxIdentLen, ""},
		{MaxIdentLen + 1, "f.wrap:2:5: identifier " + strings.Repeat("x", 20) + "... is longer than 1000 characters"},
		{5 << 20, "f.wrap:2:5: identifier " + strings.Repeat("x", 20) + "... is longer than 1000 characters"},
	} {
		src := "spec S\nvar " + strings.Repeat("x", tt.n) + ": bool\n"
		_, err := Parse("f.wrap", []byte(src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%d characters: got %q, want %q", tt.n, got, tt.want)
		}
	}
}
