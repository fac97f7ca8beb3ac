package guard_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/internal/loopback"
)

// The crash test's child: a guard on a journal, served over HTTP on a Unix
// socket, that the test kills with SIGKILL.
const (
	childEnv   = "WRAPCHECK_GUARD_CHILD" // SPEC JOURNAL SOCKET
	crashSpec  = "../examples/pipeline/pipeline.wrap"
	crashToken = "crash-test-token"
)

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		var spec, journal, socket string
		fmt.Sscan(args, &spec, &journal, &socket)
		os.Exit(child(spec, journal, socket))
	}
	os.Exit(m.Run())
}

func child(path, journal, socket string) int {
	prog := compile(failer{}, path)
	g, err := guard.New(prog, guard.Options{Journal: journal, SpecDigest: "crash"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("ready")
	http.Serve(l, g.Handler(loopback.Gate{Token: crashToken}))
	return 0
}

// failer is a testing.TB for the child, which has no test.
type failer struct{ testing.TB }

func (failer) Helper()                   {}
func (failer) Fatal(args ...any)         { fmt.Fprintln(os.Stderr, args...); os.Exit(2) }
func (failer) Fatalf(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...); os.Exit(2) }

// exchange is one request and the answer its client got.
type exchange struct {
	Req    guard.Request
	Answer brief
}

// TestCrash kills a guard with SIGKILL at random points of a stream of
// decisions from concurrent clients, restarting it on the same journal,
// and checks that every answer a client got is the answer an in-process
// guard that was never killed gives to the same requests of the run, and
// that after the last restart every run is open in the same state.
// WRAPCHECK_GUARD_CRASH_DECISIONS sets the number of decisions (10000
// for the figure; 1500 by default).
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test starts processes")
	}
	total := 1500
	if s := os.Getenv("WRAPCHECK_GUARD_CRASH_DECISIONS"); s != "" {
		total, _ = strconv.Atoi(s)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	journal, socket := filepath.Join(dir, "journal"), filepath.Join(dir, "guard.sock")
	var (
		mu   sync.Mutex
		proc *exec.Cmd
	)
	start := func() {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+crashSpec+" "+journal+" "+socket)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "ready\n" {
			t.Fatalf("child did not start: %q %v", line, err)
		}
		proc = cmd
	}
	start()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", socket)
	}}, Timeout: 10 * time.Second}
	ask := func(req guard.Request) (brief, error) {
		body, _ := json.Marshal(req)
		hr, _ := http.NewRequest("POST", "http://guard/v1/decide", bytes.NewReader(body))
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set(loopback.TokenHeader, crashToken)
		resp, err := client.Do(hr)
		if err != nil {
			return brief{}, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return brief{}, err
		}
		if resp.StatusCode != 200 {
			return brief{}, fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		return briefOf(b), nil
	}
	// askAgain retries req (same id) until a child answers it.
	askAgain := func(req guard.Request) brief {
		for range 2000 {
			a, err := ask(req)
			if err == nil {
				return a
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("no answer to %+v", req)
		return brief{}
	}

	prog := compile(t, crashSpec)
	const clients = 8
	per := total / clients
	logs := make([][]exchange, clients)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &walker{prog: prog, mach: prog.NewMachine(), rnd: rand.New(rand.NewPCG(uint64(c), 7))}
			w.mach.RecordAnswers(true)
			n := 0
			for r := 0; n < per; r++ {
				id := fmt.Sprintf("c%d-r%d", c, r)
				lines, _ := w.walk(12, true)
				for i, l := range lines {
					req := guard.Request{Run: id, ID: strconv.Itoa(i), Event: l}
					if i == 0 {
						req.Op = "open"
					}
					a := askAgain(req)
					logs[c] = append(logs[c], exchange{req, a})
					n++
					if a.Decision != "allow" || a.Ended != "" || n >= per {
						break
					}
				}
				if r%3 == 2 { // some runs are closed, the others left open
					req := guard.Request{Op: "close", Run: id}
					logs[c] = append(logs[c], exchange{req, askAgain(req)})
					n++
				}
			}
		}()
	}
	kills := 0
	go func() {
		rnd := rand.New(rand.NewPCG(1, 2))
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(20+rnd.IntN(80)) * time.Millisecond):
			}
			mu.Lock()
			proc.Process.Kill() // SIGKILL on Unix
			proc.Wait()
			kills++
			start()
			mu.Unlock()
		}
	}()
	wg.Wait()
	close(done)
	mu.Lock()
	proc.Process.Kill() // SIGKILL on Unix
	proc.Wait()
	mu.Unlock()
	t.Logf("%d kills", kills)

	// The reference: a guard never killed, given each run's requests in
	// the order its client made them (runs are independent).
	ref, err := guard.New(prog, guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for c := range clients {
		for _, ex := range logs[c] {
			want := briefOf(ref.Handle(ex.Req))
			if diff := cmp.Diff(want, ex.Answer); diff != "" {
				t.Fatalf("client %d, %+v: answer (-reference +got):\n%s", c, ex.Req, diff)
			}
		}
	}
	restored, err := guard.New(prog, guard.Options{Journal: journal, SpecDigest: "crash"})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if restored.Runs() != ref.Runs() {
		t.Errorf("%d runs open after the restart, want %d", restored.Runs(), ref.Runs())
	}
	for c := range clients {
		for _, ex := range logs[c] {
			want, wok := ref.RunKey(ex.Req.Run)
			got, gok := restored.RunKey(ex.Req.Run)
			if wok != gok || want != got {
				t.Fatalf("run %s: restored open %v, reference open %v, states equal %v", ex.Req.Run, gok, wok, want == got)
			}
		}
	}
	if kills == 0 {
		t.Errorf("the guard was never killed")
	}
}
