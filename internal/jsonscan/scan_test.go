package jsonscan

import "testing"

// event is a guard request's event of examples/pipeline.
var event = []byte(`{"action":"wrapper.render","asked":{"executor":[]},"state":{"phase":"verifying","brief":[],"step":0,"draft":[],"rerenders":0,"glitches":0,"pending":"unreleased","approved":false,"apprDraft":[],"insp":[0,0],"rel":["unreleased","unreleased"],"evidence":[{"status":"answered","pass":false,"issues":false},{"status":"answered","pass":false,"issues":false}],"cites":[[],[]],"apprCites":[[],[]]}}`)

// BenchmarkSkip reads an event of the guard's requests whole.
func BenchmarkSkip(b *testing.B) {
	b.SetBytes(int64(len(event)))
	for range b.N {
		s := New(event)
		if _, ok := s.Skip(); !ok {
			b.Fatal("Skip declines the event")
		}
	}
}

// TestOffset: Offset counts what was read, white space included.
func TestOffset(t *testing.T) {
	s := New([]byte(` {"a": 1} x`))
	if v, ok := s.Skip(); !ok || string(v) != `{"a": 1}` || s.Offset() != 9 {
		t.Fatalf("Skip gives %q %v, offset %d", v, ok, s.Offset())
	}
}
