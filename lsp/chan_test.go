package lsp

import (
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// chanSpec has channels (an extension): a buffered one, a rendezvous one,
// an array of them.
const chanSpec = `spec Chans
type Node = 0..1
var q: chan[2] of 1..2
var hand: chan[0] of 1..2
var ring: [Node]chan[1] of bool
var total: 0..3
process prod {
  var n: 0..2
  action put when n < 2 {
    q ! n + 1
    n := n + 1
  }
}
process cons {
  action get {
    q ? total
  }
  action pass {
    hand ! 1
  }
}
process node[i: Node] {
  action take {
    hand ? total
  }
  action tick {
    ring[i] ! true
  }
}
`

// TestChannels: hover, rename and completion see channel names (an
// extension) as the variables they are, in their declarations, sends and
// receives.
func TestChannels(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	if d := c.open(testURI, chanSpec); len(d) != 0 {
		t.Fatalf("channel spec has diagnostics: %+v", d)
	}
	for _, tt := range []struct {
		pos  position
		want string
	}{
		{at(chanSpec, "q ! n", 0), "var q: chan[2] of 1..2"},
		{at(chanSpec, "hand ? total", 0), "var hand: chan[0] of 1..2"},
		{at(chanSpec, "ring[i]", 0), "var ring: [Node]chan[1] of bool"},
	} {
		var h *hover
		c.result("textDocument/hover", docPos(testURI, tt.pos), &h)
		if h == nil || !strings.Contains(h.Contents.Value, tt.want) {
			t.Errorf("hover at %v = %+v, want it to contain %q", tt.pos, h, tt.want)
		}
	}
	p := docPos(testURI, at(chanSpec, "hand ! 1", 0))
	p["newName"] = "handoff"
	out := renamed(t, c.call("textDocument/rename", p), chanSpec)
	for _, w := range []string{"var handoff: chan[0] of 1..2", "handoff ! 1", "handoff ? total"} {
		if !strings.Contains(out, w) {
			t.Errorf("renamed text lacks %q:\n%s", w, out)
		}
	}
	m1, err1 := spec.ParseFile("a.wrap", []byte(chanSpec), spec.Options{})
	m2, err2 := spec.ParseFile("b.wrap", []byte(out), spec.Options{})
	if err1 != nil || err2 != nil {
		t.Fatalf("%v / %v", err1, err2)
	}
	if len(m1.Actions) != len(m2.Actions) || len(m1.Actions) != 6 {
		t.Errorf("the renamed spec has %d actions, the spec %d; want 6 (put, get, tick twice, pass with each take)", len(m2.Actions), len(m1.Actions))
	}
	var l completionList
	c.result("textDocument/completion", docPos(testURI, at(chanSpec, "    n := n + 1", 0).add(4)), &l)
	names := " " + strings.Join(labels(l), " ") + " "
	for _, w := range []string{"q", "hand", "ring", "total"} {
		if !strings.Contains(names, " "+w+" ") {
			t.Errorf("completion in put lacks %s: %s", w, names)
		}
	}
}
