package guard_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/internal/loopback"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// TestClientsKeepAlive runs the Python and JavaScript clients of
// clients/ against the guard's HTTP handler on a listener that counts
// connections: thirteen requests one after another, then shutdown, take
// one connection, kept alive (a connection a request is a TCP handshake
// and a new server goroutine each time; the Python client took 12).
// Node's global agent keeps connections alive since Node 19; the
// client's own agent does on older ones too, and lets shutdown close
// them. Without python3 or node the test skips them, and fails instead
// when CI=true.
func TestClientsKeepAlive(t *testing.T) {
	for _, tt := range []struct{ name, tool, script string }{
		{"python", "python3", `
import sys
sys.path.insert(0, "../clients/python")
from wrapcheck_guard import Guard
g = Guard.http(sys.argv[1], sys.argv[2])
assert g.open("r").allowed
assert g.step("r", "wrapper.plan", traceparent="00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").allowed
for _ in range(10):
    assert g.request({"op": "state", "run": "r"}).allowed
assert g.close("r").allowed
g.shutdown()
print("ok")
`},
		{"node", "node", `
const { Guard } = await import(new URL("../clients/typescript/guard.mjs", "file://" + process.cwd() + "/").href);
const g = Guard.http(process.argv[1], process.argv[2]);
const ok = (d) => { if (!d.allowed) throw new Error(JSON.stringify(d.raw)); };
ok(await g.open("r"));
ok(await g.step("r", "wrapper.plan", { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }));
for (let i = 0; i < 10; i++) ok(await g.request({ op: "state", run: "r" }));
ok(await g.close("r"));
await g.shutdown();
console.log("ok");
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := testenv.Tool(t, tt.tool, "install "+tt.tool+" to run the guard's client")
			var mu sync.Mutex
			var posted []byte
			collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				posted = append(posted, b...)
				mu.Unlock()
			}))
			defer collector.Close()
			exp := guard.NewSpanExporter(collector.URL+"/v1/traces", "test")
			g, err := guard.New(compile(t, "../examples/pipeline/pipeline.wrap"), guard.Options{Spans: exp})
			if err != nil {
				t.Fatal(err)
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cl := &countingListener{Listener: l}
			_, port, _ := net.SplitHostPort(l.Addr().String())
			srv := &http.Server{Handler: g.Handler(loopback.Gate{Token: "t", Port: port})}
			go srv.Serve(cl)
			defer srv.Close()
			args := []string{"-c", tt.script}
			if tt.tool == "node" {
				args = []string{"--input-type=module", "-e", tt.script}
			}
			cmd := exec.Command(bin, append(args, "http://"+l.Addr().String(), "t")...)
			cmd.WaitDelay = 10 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "ok" {
				t.Fatalf("%s: %v\n%s", tt.tool, err, out)
			}
			if n := cl.n.Load(); n != 1 {
				t.Errorf("13 requests took %d connections, want 1", n)
			}
			// the step's traceparent reached the guard: its span is the child
			exp.Close()
			mu.Lock()
			defer mu.Unlock()
			if !bytes.Contains(posted, []byte(`"parentSpanId":"00f067aa0ba902b7"`)) || !bytes.Contains(posted, []byte(`"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"`)) {
				t.Errorf("no span the child of the step's traceparent in %s", posted)
			}
		})
	}
}

// TestClientsReconnect restarts the guard's server between two requests
// of the Python and JavaScript clients: the connection they kept is then
// closed, and the second request, sent on it, fails and is retried on a
// new one, so both are answered (a guard restarted from its journal, as
// `wrapcheck guard --journal` is after a crash, is reached again without
// a block).
func TestClientsReconnect(t *testing.T) {
	for _, tt := range []struct{ name, tool, script string }{
		{"python", "python3", `
import sys
sys.path.insert(0, "../clients/python")
from wrapcheck_guard import Guard
g = Guard.http(sys.argv[1], sys.argv[2])
print(g.open("a").allowed, flush=True)
sys.stdin.readline()
print(g.open("b").allowed, flush=True)
g.shutdown()
`},
		{"node", "node", `
const { Guard } = await import(new URL("../clients/typescript/guard.mjs", "file://" + process.cwd() + "/").href);
const { createInterface } = await import("node:readline");
const g = Guard.http(process.argv[1], process.argv[2]);
console.log((await g.open("a")).allowed ? "True" : "False");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
await lines.next();
console.log((await g.open("b")).allowed ? "True" : "False");
await g.shutdown();
process.exit(0);
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := testenv.Tool(t, tt.tool, "install "+tt.tool+" to run the guard's client")
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			_, port, _ := net.SplitHostPort(addr)
			serve := func(l net.Listener) (*http.Server, *countingListener) {
				g, err := guard.New(compile(t, "../examples/pipeline/pipeline.wrap"), guard.Options{})
				if err != nil {
					t.Fatal(err)
				}
				cl := &countingListener{Listener: l}
				srv := &http.Server{Handler: g.Handler(loopback.Gate{Token: "t", Port: port})}
				go srv.Serve(cl)
				return srv, cl
			}
			srv, first := serve(l)
			args := []string{"-c", tt.script}
			if tt.tool == "node" {
				args = []string{"--input-type=module", "-e", tt.script}
			}
			cmd := exec.Command(bin, append(args, "http://"+addr, "t")...)
			cmd.WaitDelay = 10 * time.Second
			in, _ := cmd.StdinPipe()
			outPipe, _ := cmd.StdoutPipe()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewReader(outPipe)
			line1, _ := out.ReadString('\n')
			srv.Close() // the kept connection closes with it
			l2, err := net.Listen("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			srv2, second := serve(l2)
			defer srv2.Close()
			io.WriteString(in, "go on\n")
			line2, _ := out.ReadString('\n')
			in.Close()
			if err := cmd.Wait(); err != nil || line1 != "True\n" || line2 != "True\n" {
				t.Fatalf("%s: %v: answered %q then %q\n%s", tt.tool, err, line1, line2, stderr.String())
			}
			if a, b := first.n.Load(), second.n.Load(); a != 1 || b != 1 {
				t.Errorf("connections %d before the restart and %d after, want 1 and 1", a, b)
			}
		})
	}
}
