package loopback

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGate(t *testing.T) {
	tcp := Gate{Token: "tok", Port: "8377"}
	unix := Gate{Token: "tok"}
	tests := []struct {
		name   string
		gate   Gate
		method string
		host   string
		hdr    map[string]string
		want   []int // CheckSite, HasToken (1 or 0), CheckBody
	}{
		{"own host", tcp, "POST", "127.0.0.1:8377", map[string]string{"X-Wrapcheck-Token": "tok", "Content-Type": "application/json"}, []int{0, 1, 0}},
		{"localhost, bearer", tcp, "POST", "LOCALHOST:8377", map[string]string{"Authorization": "Bearer tok", "Content-Type": "application/json; charset=utf-8"}, []int{0, 1, 0}},
		{"rebinding", tcp, "GET", "evil.example:8377", nil, []int{403, 0, 0}},
		{"other port", tcp, "GET", "127.0.0.1:1", nil, []int{403, 0, 0}},
		{"other origin", tcp, "GET", "[::1]:8377", map[string]string{"Origin": "http://evil.example"}, []int{403, 0, 0}},
		{"own origin", tcp, "GET", "[::1]:8377", map[string]string{"Origin": "http://localhost:8377"}, []int{0, 0, 0}},
		{"wrong token", tcp, "GET", "127.0.0.1:8377", map[string]string{"X-Wrapcheck-Token": "to"}, []int{0, 0, 0}},
		{"form post", tcp, "POST", "127.0.0.1:8377", map[string]string{"Content-Type": "text/plain"}, []int{0, 0, 415}},
		{"unix, any host", unix, "GET", "whatever", map[string]string{"X-Wrapcheck-Token": "tok"}, []int{0, 1, 0}},
		{"unix, an origin", unix, "GET", "localhost", map[string]string{"Origin": "http://localhost"}, []int{403, 0, 0}},
		{"no token set", Gate{Port: "1"}, "GET", "127.0.0.1:1", map[string]string{"X-Wrapcheck-Token": ""}, []int{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/", nil)
			r.Host = tt.host
			for k, v := range tt.hdr {
				r.Header.Set(k, v)
			}
			site, _ := tt.gate.CheckSite(r)
			tok := 0
			if tt.gate.HasToken(r) {
				tok = 1
			}
			body, _ := CheckBody(r)
			if diff := cmp.Diff(tt.want, []int{site, tok, body}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestIsOwnHost holds IsOwnHost, which compares without concatenating,
// to the rule it implements (the host, in lower case, is a loopback name
// and the port, or the name alone for port 80), on hosts near the own
// ones: cut short, lengthened, in other cases, with other ports.
func TestIsOwnHost(t *testing.T) {
	rule := func(g Gate, host string) bool {
		host = strings.ToLower(host)
		for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
			if host == name+":"+g.Port || (g.Port == "80" && host == name) {
				return true
			}
		}
		return false
	}
	var hosts []string
	for _, name := range []string{"127.0.0.1", "localhost", "LocalHost", "[::1]", "127.0.0.10", "localhostx", "::1", ""} {
		for _, port := range []string{"", ":", ":80", ":8", ":8377", ":83770", ":837", "80", "8377", ":8377:8377"} {
			h := name + port
			hosts = append(hosts, h, h+" ", " "+h)
			if h != "" {
				hosts = append(hosts, h[1:], h[:len(h)-1])
			}
		}
	}
	for _, port := range []string{"8377", "80", "8", ""} {
		g := Gate{Port: port}
		for _, h := range hosts {
			if got, want := g.IsOwnHost(h), rule(g, h) && port != ""; got != want {
				t.Errorf("Gate{Port: %q}.IsOwnHost(%q) = %v, want %v", port, h, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { Gate{Port: "8377"}.IsOwnHost("127.0.0.1:8377") }); n != 0 {
		t.Errorf("IsOwnHost allocates %v times, want 0", n)
	}
}
