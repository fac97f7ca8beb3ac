// Package loopback admits the requests of a local HTTP server (one that
// listens on a loopback address or a Unix socket, for a client on the
// same machine) that a page of another site, or one reached by DNS
// rebinding, could send: the server's own Host, its own Origin when one
// is sent, a per-launch token compared in constant time, and a JSON body
// for a POST. `wrapcheck ui` and `wrapcheck guard` admit requests
// through it.
package loopback

import (
	"crypto/subtle"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// TokenHeader is the request header that carries the token.
const TokenHeader = "X-Wrapcheck-Token"

// Gate holds what a server admits. Its zero value admits no request that
// needs the token. A Gate is safe for concurrent use.
type Gate struct {
	// Token is the per-launch secret.
	Token string
	// Port is the port the server listens on, on 127.0.0.1, localhost or
	// [::1]; "" for a Unix socket, whose clients name any Host and whose
	// requests may carry no Origin (only browsers send one, and none
	// reaches a Unix socket legitimately).
	Port string
}

// CheckSite returns the status and reason of a refusal by Host and
// Origin, or 0 for a request from the server's own site.
func (g Gate) CheckSite(r *http.Request) (int, string) {
	if g.Port != "" && !g.IsOwnHost(r.Host) {
		return http.StatusForbidden, "unexpected Host " + strconv.Quote(elide(r.Host)) + ": the server answers only to 127.0.0.1:" + g.Port + " and localhost:" + g.Port
	}
	if o, ok := r.Header["Origin"]; ok && (len(o) != 1 || !g.IsOwnOrigin(o[0])) {
		return http.StatusForbidden, "request from another origin"
	}
	return 0, ""
}

// HasToken reports whether r carries the token, in the TokenHeader
// header or as `Authorization: Bearer TOKEN`.
func (g Gate) HasToken(r *http.Request) bool {
	if g.IsToken(r.Header.Get(TokenHeader)) {
		return true
	}
	t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && g.IsToken(t)
}

// CheckBody returns the status and reason of a refusal of a POST whose
// body is not declared application/json (a type no cross-origin form or
// simple request may send), or 0.
func CheckBody(r *http.Request) (int, string) {
	if r.Method == http.MethodPost {
		ct := r.Header.Get("Content-Type")
		if ct == "application/json" {
			return 0, "" // the common case, without parsing
		}
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return http.StatusUnsupportedMediaType, "a POST must be application/json"
		}
	}
	return 0, ""
}

// IsOwnHost reports whether host, a request's Host, names this server.
func (g Gate) IsOwnHost(host string) bool {
	if g.Port == "" {
		return false
	}
	host = strings.ToLower(host)
	for _, name := range ownNames {
		if rest, ok := strings.CutPrefix(host, name); ok {
			// name:port, or name alone for port 80 (no concatenation:
			// a request's check allocates nothing)
			if len(rest) == 1+len(g.Port) && rest[0] == ':' && rest[1:] == g.Port || g.Port == "80" && rest == "" {
				return true
			}
		}
	}
	return false
}

// ownNames are the host names of a loopback server.
var ownNames = []string{"127.0.0.1", "localhost", "[::1]"}

// IsOwnOrigin reports whether origin, a request's Origin, is this
// server's.
func (g Gate) IsOwnOrigin(origin string) bool {
	host, ok := strings.CutPrefix(strings.ToLower(origin), "http://")
	return ok && g.IsOwnHost(host)
}

// IsToken reports whether t is the token, in constant time.
func (g Gate) IsToken(t string) bool {
	return t != "" && g.Token != "" && subtle.ConstantTimeCompare([]byte(t), []byte(g.Token)) == 1
}

// elide replaces the middle of a string longer than 40 bytes by "…".
func elide(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:20]+"…"+s[len(s)-20:], "?")
	}
	return s
}
