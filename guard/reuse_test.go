package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/wrapcheck/wrapcheck/guard"
)

// keepHandler is a slog.Handler that keeps every record, as a buffering
// handler would: what the guard logs must stay valid after the request.
type keepHandler struct {
	mu   *sync.Mutex
	runs *[]string
}

func (h keepHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h keepHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h keepHandler) WithGroup(string) slog.Handler            { return h }
func (h keepHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "run" {
			*h.runs = append(*h.runs, a.Value.String()) // the string itself, not a copy
		}
		return true
	})
	return nil
}

// TestRequestBytesReused decides the requests of interleaved runs of
// examples/pipeline twice: on one guard each request a fresh line, on
// the other every request in one buffer that is overwritten as soon as
// AppendHandleLine returns (as a server's reused buffer is). The
// requests' run and id strings are that buffer's bytes (decodeFast): the
// answers must be the same, retried steps of open and of ended runs
// included, and the runs a buffering logger kept must still read as
// they were. It fails when a run's key, its last request id or a logged
// string keeps the request's bytes.
func TestRequestBytesReused(t *testing.T) {
	prog := compile(t, "../examples/pipeline/pipeline.wrap")
	fresh, err := guard.New(prog, guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logged []string
	reused, err := guard.New(prog, guard.Options{Logger: slog.New(keepHandler{&mu, &logged})})
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{prog: prog, mach: prog.NewMachine(), rnd: rand.New(rand.NewPCG(5, 6))}
	w.mach.RecordAnswers(true)
	rnd := rand.New(rand.NewPCG(7, 8))
	// the requests of 12 runs, interleaved, with retries, states and closes
	type pending struct {
		run   string
		lines [][]byte
		k     int
	}
	var runs []*pending
	for i := range 12 {
		lines, _ := w.walk(200, false)
		runs = append(runs, &pending{run: fmt.Sprintf("run-%02d", i), lines: lines})
	}
	var script [][]byte
	var late []guard.Request
	add := func(req guard.Request) {
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		script = append(script, b)
	}
	for len(runs) > 0 {
		i := rnd.IntN(len(runs))
		p := runs[i]
		req := guard.Request{Run: p.run, ID: fmt.Sprintf("%s-%d", p.run, p.k), Event: p.lines[p.k]}
		if p.k == 0 {
			req.Op = "open"
		}
		add(req)
		if p.k > 0 && rnd.IntN(3) == 0 {
			add(req) // a retry: answered the step's decision again
		}
		if rnd.IntN(5) == 0 {
			add(guard.Request{Op: "state", Run: p.run})
		}
		p.k++
		if p.k == len(p.lines) || rnd.IntN(15) == 0 {
			add(req) // a retry after the run's last step (it may have ended)
			late = append(late, req)
			add(guard.Request{Op: "close", Run: p.run, ID: "close-" + p.run})
			runs = slices.Delete(runs, i, i+1)
		}
	}
	// the runs' last steps again, once other requests have been in the
	// buffer: an ended run's answer comes from what the guard kept of it
	for _, req := range late {
		add(req)
	}
	buf := make([]byte, 0, 64<<10)
	var out []byte
	var runsWant []string
	ended := 0 // late retries of ended runs' last steps, answered again
	for n, req := range script {
		want := fresh.HandleLine(bytes.Clone(req))
		buf = append(buf[:0], req...)
		out = reused.AppendHandleLine(out[:0], buf)
		for i := range buf {
			buf[i] = 'x'
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("request %d %s:\n got %s\nwant %s", n, req, out, want)
		}
		var r guard.Request
		json.Unmarshal(req, &r)
		runsWant = append(runsWant, r.Run)
		if n >= len(script)-len(late) && bytes.Contains(want, []byte(`"ended":`)) {
			ended++
		}
	}
	if ended < 3 {
		t.Fatalf("%d late retries of an ended run's last step: too few to test the ended runs' answers", ended)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(logged, runsWant) {
		t.Errorf("the logger's runs differ from the requests' (%d, %d):\n%q\n%q", len(logged), len(runsWant), logged[:min(8, len(logged))], runsWant[:min(8, len(runsWant))])
	}
	t.Logf("%d requests, %d late retries of an ended run's last step", len(script), ended)
}
