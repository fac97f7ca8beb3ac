package cluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// s3Bucket is a bucket of AWS S3 or of an S3-compatible store (MinIO,
// SeaweedFS, Ceph, R2; GCS through its XML API with HMAC keys), spoken
// to with net/http and AWS Signature Version 4. It uses five requests:
// PUT with If-None-Match: * (the conditional create), GET, HEAD, DELETE
// and the list of a bucket (ListObjects, version 1, which every one of
// those stores serves). The AWS SDK that gocloud.dev's s3blob uses cost
// every process of wrapcheck about a millisecond of package
// initialisers; net/http is linked anyway.
type s3Bucket struct {
	client    *http.Client
	scheme    string
	host      string // the endpoint's host[:port]
	base      string // the endpoint's path, "" or "/path"
	bucket    string
	pathStyle bool // /bucket/key on the endpoint, not bucket.endpoint/key
	region    string
	creds     s3Creds
	gcs       bool              // storage.googleapis.com: GCS's precondition header
	extra     map[string]string // server-side encryption headers of a PUT
}

// s3Creds are the access keys requests are signed with; an empty key is
// an anonymous client (no signature).
type s3Creds struct {
	key, secret, token string
}

// openS3Bucket opens an s3:// URL. Its parameters are those of
// gocloud.dev's s3blob that apply to what the store does; s3blob's others
// are refused with a pointer to the gocloud build, which has them.
func openS3Bucket(_ context.Context, u *url.URL) (Bucket, error) {
	q := u.Query()
	for _, p := range []string{"dualstack", "fips", "accelerate", "rate_limiter_capacity", "role",
		"request_checksum_calculation", "response_checksum_validation"} {
		if q.Has(p) {
			return nil, fmt.Errorf("s3 parameter %s is not supported by the built-in S3 client (a build with -tags gocloud has it)", p)
		}
	}
	if err := knownParams(q, "region", "endpoint", "use_path_style", "s3ForcePathStyle", "disable_https",
		"hostname_immutable", "profile", "anonymous", "ssetype", "kmskeyid", "awssdk"); err != nil {
		return nil, err
	}
	boolParam := func(name string) (bool, error) {
		v := q.Get(name)
		if v == "" {
			return false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("invalid value for %q: %v", name, err)
		}
		return b, nil
	}
	b := &s3Bucket{bucket: u.Host, extra: map[string]string{}}
	if b.bucket == "" {
		return nil, errors.New("s3 URL without a bucket: want s3://bucket?...")
	}
	var flags [5]bool
	for i, name := range []string{"use_path_style", "s3ForcePathStyle", "disable_https", "hostname_immutable", "anonymous"} {
		v, err := boolParam(name)
		if err != nil {
			return nil, err
		}
		flags[i] = v
	}
	pathStyle, noHTTPS, immutable, anonymous := flags[0] || flags[1], flags[2], flags[3], flags[4]
	profile := firstNonEmpty(q.Get("profile"), os.Getenv("AWS_PROFILE"), os.Getenv("AWS_DEFAULT_PROFILE"), "default")
	b.region = firstNonEmpty(q.Get("region"), os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
	if b.region == "" {
		b.region = sharedConfig(configFile(), "profile "+profile, profile)["region"]
	}
	if b.region == "" {
		b.region = "us-east-1"
	}
	b.scheme = "https"
	if noHTTPS {
		b.scheme = "http"
	}
	if ep := q.Get("endpoint"); ep != "" {
		if !strings.Contains(ep, "://") {
			ep = b.scheme + "://" + ep
		}
		eu, err := url.Parse(ep)
		if err != nil {
			return nil, fmt.Errorf("endpoint: %v", err)
		}
		if eu.Host == "" || (eu.Scheme != "http" && eu.Scheme != "https") {
			return nil, fmt.Errorf("endpoint %q: want http://host[:port] or https://host[:port]", ep)
		}
		b.scheme, b.host, b.base = eu.Scheme, eu.Host, strings.TrimSuffix(eu.Path, "/")
	} else {
		b.host = "s3." + b.region + ".amazonaws.com"
	}
	b.gcs = b.host == "storage.googleapis.com"
	// A bucket whose name is not a host name label, or an endpoint that
	// is an IP address or localhost, puts the bucket in the path;
	// hostname_immutable keeps the endpoint's host as given.
	hostname := b.host
	if h, _, err := net.SplitHostPort(b.host); err == nil {
		hostname = h
	}
	b.pathStyle = pathStyle || immutable || !dnsLabel(b.bucket) || (b.scheme == "https" && strings.Contains(b.bucket, ".")) ||
		net.ParseIP(hostname) != nil || hostname == "localhost"
	switch sse := q.Get("ssetype"); {
	case strings.EqualFold(sse, "AES256"):
		b.extra["x-amz-server-side-encryption"] = "AES256"
	case strings.EqualFold(sse, "aws:kms"), strings.EqualFold(sse, "aws:kms:dsse"):
		b.extra["x-amz-server-side-encryption"] = strings.ToLower(sse)
	case sse != "":
		return nil, fmt.Errorf("%q is not a valid value for \"ssetype\" (AES256, aws:kms, aws:kms:dsse)", sse)
	}
	if k := q.Get("kmskeyid"); k != "" {
		b.extra["x-amz-server-side-encryption-aws-kms-key-id"] = k
	}
	if !anonymous {
		c, err := s3Credentials(profile)
		if err != nil {
			return nil, err
		}
		b.creds = c
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.ResponseHeaderTimeout = time.Minute
	b.client = &http.Client{Transport: tr}
	return b, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// dnsLabel reports whether a bucket name can be a host name's first
// labels: lower-case letters, digits, hyphens and dots, 3 to 63 bytes.
func dnsLabel(s string) bool {
	if len(s) < 3 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// s3Credentials returns the keys of the AWS SDK's first two sources: the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN),
// then the profile of the shared credentials file (~/.aws/credentials or
// AWS_SHARED_CREDENTIALS_FILE).
func s3Credentials(profile string) (s3Creds, error) {
	c := s3Creds{
		key:    firstNonEmpty(os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_ACCESS_KEY")),
		secret: firstNonEmpty(os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SECRET_KEY")),
		token:  os.Getenv("AWS_SESSION_TOKEN"),
	}
	if c.key != "" && c.secret != "" {
		return c, nil
	}
	file := os.Getenv("AWS_SHARED_CREDENTIALS_FILE")
	if file == "" {
		if home, err := os.UserHomeDir(); err == nil {
			file = filepath.Join(home, ".aws", "credentials")
		}
	}
	sec := sharedConfig(file, profile)
	c = s3Creds{key: sec["aws_access_key_id"], secret: sec["aws_secret_access_key"], token: sec["aws_session_token"]}
	if c.key != "" && c.secret != "" {
		return c, nil
	}
	return s3Creds{}, fmt.Errorf("s3: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or profile %q in %s, or anonymous=true in the URL (instance and pod roles need a build with -tags gocloud)", profile, file)
}

// configFile returns the path of the AWS shared config file.
func configFile() string {
	if f := os.Getenv("AWS_CONFIG_FILE"); f != "" {
		return f
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".aws", "config")
}

// sharedConfig returns the keys of the first of the sections that the
// INI file at path has; a missing file has none.
func sharedConfig(path string, sections ...string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	all := map[string]map[string]string{}
	var cur map[string]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			name := strings.TrimSpace(line[1 : len(line)-1])
			if all[name] == nil {
				all[name] = map[string]string{}
			}
			cur = all[name]
		case cur != nil:
			if k, v, ok := strings.Cut(line, "="); ok {
				cur[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
	}
	for _, s := range sections {
		if m := all[s]; m != nil {
			return m
		}
	}
	return nil
}

// s3Error is a response of the server other than the one expected.
type s3Error struct {
	Status  int
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

func (e *s3Error) Error() string {
	msg := "HTTP " + strconv.Itoa(e.Status)
	if e.Code != "" {
		msg += " " + printable(e.Code)
	}
	if e.Message != "" {
		msg += ": " + printable(e.Message)
	}
	return msg
}

// printable returns a server's text for a message: as it is when it is
// short and printable, else quoted with Go's escapes and cut to 200
// bytes, so that no newline, escape sequence or workflow command the
// server sends reaches an output line as it is.
func printable(s string) string {
	if len(s) <= 200 && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "..."
	}
	return strconv.Quote(s)
}

// retryable reports whether a request that got status may succeed when
// sent again: the server's transient errors and throttling, and S3's
// answer to two conditional writes of one key at once.
func retryable(status int) bool {
	return status == http.StatusInternalServerError || status == http.StatusBadGateway ||
		status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout ||
		status == http.StatusTooManyRequests || status == http.StatusConflict
}

// The bounds on what a server sends: the body of a response that is not
// an object (an error, a PUT's answer) is read up to maxBody bytes, a
// page of a listing up to maxListPage, and a listing stops with an error
// after maxListKeys keys (the store lists the leases of one worker, a
// few keys).
const (
	maxBody     = 64 << 10
	maxListPage = 8 << 20
	maxListKeys = 1 << 16
)

// do sends one request (again, up to 6 times, after a transient error)
// and returns the status and body of the last response. The body is read
// up to limit bytes (a longer one is an error), except that with open a
// response of status 200 or 206 comes back with its body unread in rc,
// for the caller to read and close. The request ends with ctx: its deadline
// bounds the whole exchange, the body's reads included.
func (b *s3Bucket) do(ctx context.Context, method, key string, query url.Values, body []byte, hdr map[string]string, limit int64, open bool) (status int, data []byte, rc io.ReadCloser, err error) {
	path := b.base
	host := b.host
	if b.pathStyle {
		path += "/" + b.bucket
	} else {
		host = b.bucket + "." + host
	}
	path += "/" + key
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, b.scheme+"://"+host+"/", bytes.NewReader(body))
		if err != nil {
			return 0, nil, nil, err
		}
		req.URL.Path, req.URL.RawPath = path, s3Escape(path, false)
		req.URL.RawQuery = canonicalQuery(query)
		req.Host = host
		if len(body) == 0 {
			req.Body, req.ContentLength = http.NoBody, 0
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if b.creds.key != "" {
			signV4(req, payloadHash, b.creds, b.region, time.Now())
		}
		resp, err := b.client.Do(req)
		var status int
		var data []byte
		if err == nil {
			status = resp.StatusCode
			if open && (status == http.StatusOK || status == http.StatusPartialContent) {
				return status, nil, resp.Body, nil
			}
			data, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
			resp.Body.Close()
			if err == nil && int64(len(data)) > limit {
				return status, nil, nil, fmt.Errorf("the response's body: %w: more than %d bytes", ErrTooLarge, limit)
			}
		}
		transient := err != nil && ctx.Err() == nil && isTransient(err)
		if err == nil && !retryable(status) || err != nil && !transient || attempt == 6 {
			return status, data, nil, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, nil, nil, ctx.Err()
		case <-t.C:
		}
		delay *= 2
	}
}

// isTransient reports whether a failed request may succeed again: a
// network error (a reset or timed-out connection), not a bad URL.
func isTransient(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		(errors.As(err, &ue) && !strings.Contains(ue.Err.Error(), "unsupported protocol"))
}

func (b *s3Bucket) fail(method, key string, status int, body []byte, err error) error {
	where := fmt.Sprintf("s3 %s s3://%s/%s", method, b.bucket, key)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	e := &s3Error{Status: status}
	if xml.Unmarshal(body, e) != nil {
		// Not S3's error document: the body, quoted by Error.
		e.Message = string(body)
	}
	return fmt.Errorf("%s: %w", where, e)
}

func (b *s3Bucket) Create(ctx context.Context, key string, data []byte) error {
	hdr := map[string]string{"Content-Type": "application/octet-stream"}
	if b.gcs {
		hdr["x-goog-if-generation-match"] = "0"
	} else {
		hdr["If-None-Match"] = "*"
	}
	for k, v := range b.extra {
		hdr[k] = v
	}
	status, body, _, err := b.do(ctx, http.MethodPut, key, nil, data, hdr, maxBody, false)
	switch {
	case err == nil && status/100 == 2:
		return nil
	case err == nil && status == http.StatusPreconditionFailed:
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	return b.fail("PUT", key, status, body, err)
}

func (b *s3Bucket) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	status, body, rc, err := b.do(ctx, http.MethodGet, key, nil, nil, nil, maxBody, true)
	if rc != nil {
		return &s3Reader{ctx: ctx, b: b, key: key, body: rc}, nil
	}
	err = b.fail("GET", key, status, body, err)
	if se := (*s3Error)(nil); errors.As(err, &se) && status == http.StatusNotFound && (se.Code == "" || se.Code == "NoSuchKey") {
		return nil, fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	return nil, err
}

// s3Reader is an object's body that a transient error (a connection
// reset, cut short) does not end: the rest is asked for again with a
// range request, up to 5 times, as do sends a request again. Objects
// are written once, so the rest is the same object's.
type s3Reader struct {
	ctx   context.Context
	b     *s3Bucket
	key   string
	body  io.ReadCloser
	off   int64 // the bytes read so far
	tries int
}

func (r *s3Reader) Read(p []byte) (int, error) {
	for {
		n, err := r.body.Read(p)
		r.off += int64(n)
		if err == nil || err == io.EOF || r.ctx.Err() != nil || !isTransient(err) || r.tries == 5 {
			return n, err
		}
		r.tries++
		r.body.Close()
		r.body = http.NoBody
		status, data, rc, rerr := r.b.do(r.ctx, http.MethodGet, r.key, nil, nil,
			map[string]string{"Range": "bytes=" + strconv.FormatInt(r.off, 10) + "-"}, maxBody, true)
		if rc != nil && status != http.StatusPartialContent {
			rc.Close()
			return n, fmt.Errorf("s3 GET s3://%s/%s: %w; asked for the rest, the server sent the whole object again", r.b.bucket, r.key, err)
		}
		if rc == nil {
			return n, fmt.Errorf("%w; asking for the rest: %w", err, r.b.fail("GET", r.key, status, data, rerr))
		}
		r.body = rc
		if n > 0 {
			return n, nil
		}
	}
}

func (r *s3Reader) Close() error { return r.body.Close() }

func (b *s3Bucket) Exists(ctx context.Context, key string) (bool, error) {
	status, body, _, err := b.do(ctx, http.MethodHead, key, nil, nil, nil, maxBody, false)
	switch {
	case err == nil && status == http.StatusOK:
		return true, nil
	case err == nil && status == http.StatusNotFound:
		return false, nil
	}
	return false, b.fail("HEAD", key, status, body, err)
}

func (b *s3Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	marker := ""
	where := fmt.Sprintf("s3 list s3://%s/%s", b.bucket, prefix)
	for {
		q := url.Values{"prefix": {prefix}}
		if marker != "" {
			q.Set("marker", marker)
		}
		status, body, _, err := b.do(ctx, http.MethodGet, "", q, nil, nil, maxListPage, false)
		if err != nil || status != http.StatusOK {
			return nil, b.fail("GET", "?prefix="+prefix, status, body, err)
		}
		var res struct {
			IsTruncated bool
			NextMarker  string
			Contents    []struct{ Key string }
		}
		if err := xml.Unmarshal(body, &res); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		for _, c := range res.Contents {
			keys = append(keys, c.Key)
		}
		if !res.IsTruncated || len(res.Contents) == 0 {
			break
		}
		if len(keys) > maxListKeys {
			return nil, fmt.Errorf("%s: more than %d keys", where, maxListKeys)
		}
		// Keys come in increasing order: a page that does not move past
		// the last marker would repeat forever.
		next := firstNonEmpty(res.NextMarker, res.Contents[len(res.Contents)-1].Key)
		if next <= marker {
			return nil, fmt.Errorf("%s: the server's listing does not advance (marker %q after %q)", where, next, marker)
		}
		marker = next
	}
	sort.Strings(keys)
	return keys, nil
}

func (b *s3Bucket) Delete(ctx context.Context, key string) error {
	status, body, _, err := b.do(ctx, http.MethodDelete, key, nil, nil, nil, maxBody, false)
	if err == nil && (status/100 == 2 || status == http.StatusNotFound) {
		return nil
	}
	return b.fail("DELETE", key, status, body, err)
}

func (b *s3Bucket) Close() error {
	b.client.CloseIdleConnections()
	return nil
}

// s3Escape is the URI encoding of Signature Version 4: every byte but
// the unreserved characters (A-Z a-z 0-9 - . _ ~) as %XX, and '/' too
// when slash is set (a query's keys and values; not a path).
func s3Escape(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '/' && !slash {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hexDigits[c>>4])
		sb.WriteByte(hexDigits[c&15])
	}
	return sb.String()
}

// canonicalQuery is a query in Signature Version 4's canonical form: the
// parameters sorted by name, then value, each encoded with s3Escape; the
// request sends it as it is signed.
func canonicalQuery(q url.Values) string {
	var parts []string
	for k, vs := range q {
		for _, v := range vs {
			parts = append(parts, s3Escape(k, true)+"="+s3Escape(v, true))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

// signV4 signs req for service s3 with AWS Signature Version 4: it sets
// X-Amz-Date, X-Amz-Content-Sha256 (payloadHash, the hex SHA-256 of the
// body), X-Amz-Security-Token for temporary keys, and Authorization. The
// signed headers are Host and every header of req but User-Agent.
func signV4(req *http.Request, payloadHash string, c s3Creds, region string, now time.Time) {
	amzDate := now.UTC().Format("20060102T150405Z")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	if c.token != "" {
		req.Header.Set("X-Amz-Security-Token", c.token)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	headers := map[string]string{"host": host}
	for k, vs := range req.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || lk == "user-agent" {
			continue
		}
		vals := make([]string, len(vs))
		for i, v := range vs {
			vals[i] = strings.Join(strings.Fields(v), " ")
		}
		headers[lk] = strings.Join(vals, ",")
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	var canon strings.Builder
	canon.WriteString(req.Method + "\n")
	uri := s3Escape(req.URL.Path, false)
	if uri == "" {
		uri = "/"
	}
	canon.WriteString(uri + "\n")
	q, _ := url.ParseQuery(req.URL.RawQuery)
	canon.WriteString(canonicalQuery(q) + "\n")
	for _, k := range names {
		canon.WriteString(k + ":" + headers[k] + "\n")
	}
	signed := strings.Join(names, ";")
	canon.WriteString("\n" + signed + "\n" + payloadHash)
	day := amzDate[:8]
	scope := day + "/" + region + "/s3/aws4_request"
	h := sha256.Sum256([]byte(canon.String()))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(h[:])
	mac := func(key []byte, data string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(data))
		return m.Sum(nil)
	}
	k := mac([]byte("AWS4"+c.secret), day)
	k = mac(k, region)
	k = mac(k, "s3")
	k = mac(k, "aws4_request")
	sig := hex.EncodeToString(mac(k, toSign))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+c.key+"/"+scope+", SignedHeaders="+signed+", Signature="+sig)
}
