package guard_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/internal/loopback"
)

// TestHandlerBodies sends the request bodies a client may send on one
// keep-alive connection, raw, and reads each answer: of declared length
// (one after another and pipelined, so that a buffer reused from the one
// before must not leak into the next), chunked, longer than
// MaxRequestBytes both ways, and cut short (the connection then closes).
func TestHandlerBodies(t *testing.T) {
	g, err := guard.New(compile(t, "../examples/pipeline/pipeline.wrap"), guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(nil)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := strings.Cut(addr, ":")
	srv.Config.Handler = g.Handler(loopback.Gate{Token: "t", Port: port})
	head := "POST /v1/decide HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nX-Wrapcheck-Token: t\r\n"
	declared := func(body string) string {
		return head + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
	}
	chunked := func(body string) string {
		return head + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	}
	long := `{"run": "` + strings.Repeat("x", guard.MaxRequestBytes) + `"}`
	open := func(run string) string { return `{"op": "open", "run": "` + run + `"}` }
	state := func(run string) string { return `{"op": "state", "run": "` + run + `"}` }
	tests := []struct {
		name string
		send []string // written at once: pipelined
	}{
		{"declared", []string{declared(open("a" + strings.Repeat("a", 200)))}},
		{"shorter after longer", []string{declared(state("b"))}},
		{"pipelined", []string{declared(open("c")), declared(state("c")), declared(`{"run": "c", "op": "close"}`)}},
		{"chunked", []string{chunked(open("d"))}},
		{"declared too long", []string{head + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(long))}},
		{"chunked too long", []string{chunked(long)}},
		{"cut short", []string{head + "Content-Length: 100\r\n\r\n" + open("e")}},
	}
	var got []string
	for _, tt := range tests {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			conn.Write([]byte(strings.Join(tt.send, "")))
			if tt.name == "cut short" {
				conn.(*net.TCPConn).CloseWrite()
			}
		}()
		br := bufio.NewReader(conn)
		for range tt.send {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				got = append(got, tt.name+": "+err.Error())
				break
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			a := fmt.Sprintf("%s: %d %s", tt.name, resp.StatusCode, strings.TrimSpace(string(b)))
			got = append(got, a[:min(len(a), 120)]) // a state's trace cut short
		}
		conn.Close()
	}
	want := []string{
		`declared: 200 {"run":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`,
		`shorter after longer: 200 {"run":"b","decision":"block","reason":"no open run \"b\"","kind":"invalid","step":0}`,
		`pipelined: 200 {"run":"c","decision":"allow","step":0,"allowed":["wrapper.plan"]}`,
		`pipelined: 200 {"run":"c","decision":"allow","step":0,"allowed":["wrapper.plan"],"trace":[{"step":0,"action":null,"state`,
		`pipelined: 200 {"run":"c","decision":"allow","step":0,"ended":"closed"}`,
		`chunked: 200 {"run":"d","decision":"allow","step":0,"allowed":["wrapper.plan"]}`,
		`declared too long: 413 {"run":"","decision":"block","reason":"wrapcheck guard: request longer than 1052672 bytes","kind"`,
		`chunked too long: 413 {"run":"","decision":"block","reason":"wrapcheck guard: request longer than 1052672 bytes","kind":`,
		`cut short: 400 {"run":"","decision":"block","reason":"wrapcheck guard: reading the request: unexpected EOF","kind":"refu`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}
