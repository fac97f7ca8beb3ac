package guard

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/jsonscan/jsonmut"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestDecodeFastAgrees holds the one-pass reading of a request's envelope
// to encoding/json's: every request decodeFast accepts, among requests of
// every op and a hundred thousand mutations of them, is one the strict
// decoder accepts, with the same fields (an absent event and a null one
// are the same to the guard); and it reads the plain requests. Given a
// decoder, it reads the event with the envelope (as [replay.Decoder]'s
// DecodeFast does), which then is the Line replay's Decoder reads from
// the event's text.
func TestDecodeFastAgrees(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	event := `{"action": "wrapper.plan", "asked": {"planner": []}, "state": {"phase": "rendering", "evidence": [{"status": "answered", "pass": false}], "monitors": {"a": {"b": [1, {"c": null}]}}}}`
	step := `{"action":"wrapper.render","asked":{"executor":[]},"state":{"phase":"verifying","brief":[],"step":0,"draft":[],"rerenders":0,"glitches":0,"pending":"unreleased","approved":false,"apprDraft":[],"insp":[0,0],"rel":["unreleased","unreleased"],"evidence":[{"status":"answered","pass":false,"issues":false},{"status":"answered","pass":false,"issues":false}],"cites":[[],[]],"apprCites":[[],[]]}}`
	src, err := os.ReadFile("../examples/pipeline/pipeline.wrap")
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile("pipeline.wrap", src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec, ref := replay.NewDecoder(m), replay.NewDecoder(m)
	var plain [][]byte
	for _, r := range []Request{
		{Run: "r", ID: "3", Event: json.RawMessage(step)},
		{Op: "open", Run: "r", Event: json.RawMessage(`{"state": {"phase": "planning"}}`)},
		{Op: "open", Run: "run0", ID: "0"},
		{Run: "r", ID: "1", Event: json.RawMessage(event)},
		{Run: "r", ID: "2", Event: json.RawMessage(event), TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{Op: "step", Run: "a-b_c.d", Event: json.RawMessage(`null`)},
		{Op: "close", Run: "r"},
		{Run: "r", OTLP: json.RawMessage(`{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x", "attributes": []}]}]}]}`)},
	} {
		b, _ := json.Marshal(r)
		plain = append(plain, b)
	}
	plain = append(plain, []byte(" {\"run\" : \"r\",\n\"event\":"+event+"}\r\n"))
	accepted, mutated, events := 0, 0, 0
	for i, line := range plain {
		var fast Request
		var ev fastEvent
		if !decodeFast(line, &fast, dec, &ev) {
			t.Errorf("the fast path declines %s", line)
		}
		if i < 2 && !ev.ok {
			t.Errorf("the fast path does not read the event of %s", line)
		}
		for k := range 20000 {
			text := jsonmut.Mutate(line, rnd)
			var fast, slow Request
			var ev fastEvent
			d := dec
			if k%2 == 0 {
				d = nil // the envelope alone
			}
			if !decodeFast(text, &fast, d, &ev) {
				if ev.ok {
					t.Fatalf("a declined request leaves an event read: %s", text)
				}
				continue
			}
			if ev.ok {
				events++
				want, err := ref.Decode(fast.Event, 0, true)
				if err != nil {
					t.Fatalf("the fast path reads the event of %s, which replay's Decoder rejects: %v", text, err)
				}
				if !reflect.DeepEqual(ev.l, want) {
					t.Fatalf("%s:\nread with the envelope %+v\nDecode %+v", text, ev.l, want)
				}
			}
			mutated++
			if err := decodeRequest(text, &slow); err != nil {
				t.Fatalf("the fast path accepts %s, which encoding/json rejects: %v", text, err)
			}
			if !sameRequest(fast, slow) {
				t.Fatalf("%s:\nfast %+v\nslow %+v", text, fast, slow)
			}
			accepted++
		}
	}
	t.Logf("fast path: %d of the mutations, %d with their events", accepted, events)
	if mutated == 0 || events == 0 {
		t.Fatal("the fast path read no mutation, or no event")
	}
}

func sameRequest(a, b Request) bool {
	raw := func(x, y json.RawMessage) bool {
		if len(x) == 0 || isNull(x) {
			return len(y) == 0 || isNull(y)
		}
		return bytes.Equal(x, y)
	}
	return a.Op == b.Op && a.Run == b.Run && a.ID == b.ID && raw(a.Event, b.Event) && raw(a.OTLP, b.OTLP) && a.TraceParent == b.TraceParent
}

// TestEncodeAgrees holds the direct encoding of decisions to
// encoding/json's, on random decisions with every field set or not and
// strings with quotes, escapes, control bytes, invalid UTF-8 and the
// line separators.
func TestEncodeAgrees(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 13))
	words := []string{"", "run0", "a b", `q"uote`, `back\slash`, "tab\there", "nl\n", "\x00\x1f\x7f", "caf\u00e9", "\xff\xfe", "\u2028\u2029", "<&>", "wrapper.plan"}
	str := func() string {
		if rnd.IntN(3) == 0 {
			return ""
		}
		return words[rnd.IntN(len(words))]
	}
	direct := 0
	for range 20000 {
		d := &Decision{Run: str(), ID: str(), Decision: []string{"allow", "block"}[rnd.IntN(2)], Reason: str(), Kind: str(),
			Property: str(), Step: rnd.IntN(1000) - 1, Terminal: rnd.IntN(2) == 0, Ended: str()}
		for range rnd.IntN(4) {
			d.Allowed = append(d.Allowed, str())
		}
		if rnd.IntN(10) == 0 {
			d.Allowed = []string{}
		}
		switch rnd.IntN(10) {
		case 0:
			d.Trace = json.RawMessage(`[{"step": 0}]`)
		case 1:
			d.Mismatch = []string{str()}
		default:
			direct++
		}
		if got, want := encode(d), encodeJSON(d); !bytes.Equal(got, want) {
			t.Fatalf("%+v:\ngot  %s\nwant %s", d, got, want)
		}
	}
	if direct == 0 {
		t.Fatal("no decision was encoded directly")
	}
}
