package spec_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRendezvousActions checks the IR of rendezvous (an extension): one
// action per sending action and receiving action of another instance,
// in the sender's place among its process's actions, named after both;
// none for a pair whose channel indexes are different constants; a
// fairness declaration on a receiving action covers its pairs.
func TestRendezvousActions(t *testing.T) {
	src := `spec R
type Node = 0..2
var ring: [Node]chan[0] of Node
var c: chan[0] of bool
var x: bool
process node[i: Node] {
  var got: Node
  action pass {
    ring[(i + 1) % 3] ! i
  }
  action hear {
    ring[i] ? got
  }
  action tick {
    x := not x
  }
}
process ctl {
  action give {
    c ! true
  }
  action take {
    c ? x
  }
}
process other {
  action take2 {
    c ? x
  }
}
fairness weak node.hear
`
	// ctl.give meets other.take2 only: ctl.take cannot meet itself and
	// nobody else sends on c, an error
	if _, err := spec.ParseFile("r.wrap", []byte(src), spec.Options{}); err == nil {
		t.Fatal("ctl.take, which only ctl.give could meet, is accepted")
	}
	src = src[:len(src)-len("fairness weak node.hear\n")] + "process p2 {\n  action give2 {\n    c ! false\n  }\n}\nfairness weak node.hear\n"
	m, err := spec.ParseFile("r.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range m.Actions {
		names = append(names, a.Name)
	}
	want := []string{
		"node[0].pass|node[1].hear", "node[0].tick",
		"node[1].pass|node[2].hear", "node[1].tick",
		"node[2].pass|node[0].hear", "node[2].tick",
		"ctl.give|other.take2",
		"p2.give2|ctl.take", "p2.give2|other.take2",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	// each process's actions consecutive, in Model.Actions order
	for _, p := range m.Processes {
		for k := 1; k < len(p.Actions); k++ {
			if p.Actions[k] != p.Actions[k-1]+1 {
				t.Errorf("%s: actions %v not consecutive", p.Name, p.Actions)
			}
		}
	}
	if diff := cmp.Diff([][]int{{4}, {0}, {2}}, m.Fairness[0].Units); diff != "" {
		t.Errorf("fairness units of node.hear (-want +got):\n%s", diff)
	}
}
