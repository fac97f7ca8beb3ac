//go:build !gocloud

package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/google/go-cmp/cmp"
)

// The example keys and time of the Signature Version 4 examples in the
// Amazon S3 API reference ("Signature calculations for the Authorization
// header: transferring payload in a single chunk").
const (
	exampleKey    = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestSignV4Examples signs the requests of the S3 API reference's four
// examples and compares the signatures it publishes.
func TestSignV4Examples(t *testing.T) {
	at := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, method, path, query string
		headers                   map[string]string
		body                      string
		wantSigned, wantSig       string
	}{
		{"get-object", "GET", "/test.txt", "", map[string]string{"Range": "bytes=0-9"}, "",
			"host;range;x-amz-content-sha256;x-amz-date", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
		{"put-object", "PUT", "/test$file.text", "", map[string]string{"Date": "Fri, 24 May 2013 00:00:00 GMT", "X-Amz-Storage-Class": "REDUCED_REDUNDANCY"},
			"Welcome to Amazon S3.",
			"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class", "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"},
		{"get-lifecycle", "GET", "/", "lifecycle", nil, "",
			"host;x-amz-content-sha256;x-amz-date", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
		{"list-objects", "GET", "/", "max-keys=2&prefix=J", nil, "",
			"host;x-amz-content-sha256;x-amz-date", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, "https://examplebucket.s3.amazonaws.com/", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Path, req.URL.RawPath, req.URL.RawQuery = tt.path, s3Escape(tt.path, false), tt.query
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			signV4(req, sha256Hex([]byte(tt.body)), s3Creds{key: exampleKey, secret: exampleSecret}, "us-east-1", at)
			want := "AWS4-HMAC-SHA256 Credential=" + exampleKey + "/20130524/us-east-1/s3/aws4_request, SignedHeaders=" +
				tt.wantSigned + ", Signature=" + tt.wantSig
			if diff := cmp.Diff(want, req.Header.Get("Authorization")); diff != "" {
				t.Errorf("Authorization (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSignV4SDK compares signV4 with the AWS SDK's signer on random
// requests of the shapes the store sends: every method, keys with every
// byte that needs escaping, list queries, session tokens, other regions.
func TestSignV4SDK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcXYZ019-._~/ !$&'()*+,;=:@%?#[]\"<>^`{|}é\x7f"
	word := func(n int) string {
		var sb strings.Builder
		for range 1 + r.IntN(n) {
			sb.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	for i := range 300 {
		method := []string{"GET", "PUT", "HEAD", "DELETE"}[r.IntN(4)]
		path := "/bucket/" + word(30)
		q := url.Values{}
		if r.IntN(3) == 0 {
			q.Set("prefix", word(10))
			if r.IntN(2) == 0 {
				q.Set("marker", word(20))
			}
		}
		body := []byte(word(50))
		creds := s3Creds{key: "AKID" + fmt.Sprint(i), secret: word(40)}
		if r.IntN(2) == 0 {
			creds.token = "token/" + word(20)
		}
		region := []string{"us-east-1", "eu-west-3", "auto"}[r.IntN(3)]
		at := time.Unix(1.7e9+r.Int64N(1e8), 0)
		mk := func() *http.Request {
			req, err := http.NewRequest(method, "http://127.0.0.1:8333/", strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Path, req.URL.RawPath, req.URL.RawQuery = path, s3Escape(path, false), canonicalQuery(q)
			// The SDK signs Content-Length too, where it is known; a
			// signature need not cover it, and signV4 does not.
			req.ContentLength = 0
			req.Header.Set("Content-Type", "application/octet-stream")
			if method == "PUT" {
				req.Header.Set("If-None-Match", "*")
			}
			return req
		}
		ours, theirs := mk(), mk()
		signV4(ours, sha256Hex(body), creds, region, at)
		theirs.Header.Set("X-Amz-Content-Sha256", sha256Hex(body))
		err := signer.SignHTTP(context.Background(), aws.Credentials{AccessKeyID: creds.key, SecretAccessKey: creds.secret, SessionToken: creds.token},
			theirs, sha256Hex(body), "s3", region, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token"} {
			if diff := cmp.Diff(theirs.Header.Get(h), ours.Header.Get(h)); diff != "" {
				t.Fatalf("%s %s?%s: %s (-sdk +ours):\n%s", method, path, ours.URL.RawQuery, h, diff)
			}
		}
	}
}

// TestOpenS3 checks how an s3:// URL maps to requests: the endpoint, the
// addressing style, the region, the credentials and the refused
// parameters.
func TestOpenS3(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_PROFILE", "")
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	os.WriteFile(creds, []byte("[default]\naws_access_key_id = AKDEF\naws_secret_access_key = sdef\n\n[ci]\naws_access_key_id=AKCI\naws_secret_access_key=sci\naws_session_token=tok\n"), 0o600)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	cfg := filepath.Join(dir, "config")
	os.WriteFile(cfg, []byte("[profile ci]\nregion = ap-south-1\n"), 0o600)
	t.Setenv("AWS_CONFIG_FILE", cfg)
	type view struct {
		Scheme, Host, Base, Bucket, Region string
		PathStyle, GCS                     bool
		Key, Token                         string
	}
	tests := []struct {
		url  string
		want view
	}{
		{"s3://runs?region=eu-west-1", view{"https", "s3.eu-west-1.amazonaws.com", "", "runs", "eu-west-1", false, false, "AKDEF", ""}},
		{"s3://runs", view{"https", "s3.us-east-1.amazonaws.com", "", "runs", "us-east-1", false, false, "AKDEF", ""}},
		{"s3://runs?profile=ci", view{"https", "s3.ap-south-1.amazonaws.com", "", "runs", "ap-south-1", false, false, "AKCI", "tok"}},
		{"s3://wcrun?endpoint=http://127.0.0.1:8333&region=us-east-1&use_path_style=true",
			view{"http", "127.0.0.1:8333", "", "wcrun", "us-east-1", true, false, "AKDEF", ""}},
		{"s3://runs?endpoint=127.0.0.1:9000&disable_https=true&s3ForcePathStyle=true",
			view{"http", "127.0.0.1:9000", "", "runs", "us-east-1", true, false, "AKDEF", ""}},
		{"s3://runs?endpoint=http://127.0.0.1:9000", view{"http", "127.0.0.1:9000", "", "runs", "us-east-1", true, false, "AKDEF", ""}},
		{"s3://runs?endpoint=http://localhost:9000", view{"http", "localhost:9000", "", "runs", "us-east-1", true, false, "AKDEF", ""}},
		{"s3://runs?endpoint=http://minio:9000", view{"http", "minio:9000", "", "runs", "us-east-1", false, false, "AKDEF", ""}},
		{"s3://runs?endpoint=https://minio.example.com/s3/&region=x", view{"https", "minio.example.com", "/s3", "runs", "x", false, false, "AKDEF", ""}},
		{"s3://my.runs?region=eu-west-1", view{"https", "s3.eu-west-1.amazonaws.com", "", "my.runs", "eu-west-1", true, false, "AKDEF", ""}},
		{"s3://Runs_1?region=eu-west-1", view{"https", "s3.eu-west-1.amazonaws.com", "", "Runs_1", "eu-west-1", true, false, "AKDEF", ""}},
		{"s3://runs?endpoint=https://storage.googleapis.com&region=auto", view{"https", "storage.googleapis.com", "", "runs", "auto", false, true, "AKDEF", ""}},
		{"s3://runs?anonymous=true&region=eu-west-1", view{"https", "s3.eu-west-1.amazonaws.com", "", "runs", "eu-west-1", false, false, "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			b, err := OpenBucket(context.Background(), tt.url)
			if err != nil {
				t.Fatal(err)
			}
			s := b.(*s3Bucket)
			got := view{s.scheme, s.host, s.base, s.bucket, s.region, s.pathStyle, s.gcs, s.creds.key, s.creds.token}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("env-credentials-first", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKENV")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "senv")
		b, err := OpenBucket(context.Background(), "s3://runs?profile=ci")
		if err != nil {
			t.Fatal(err)
		}
		if k := b.(*s3Bucket).creds.key; k != "AKENV" {
			t.Errorf("key %s, want the environment's AKENV", k)
		}
	})
	for _, tt := range []struct{ url, want string }{
		{"s3://runs?dualstack=true", "s3 parameter dualstack is not supported by the built-in S3 client (a build with -tags gocloud has it)"},
		{"s3://runs?regoin=x", `unknown query parameter "regoin"`},
		{"s3://runs?use_path_style=maybe", `invalid value for "use_path_style"`},
		{"s3://runs?ssetype=DES", `"DES" is not a valid value for "ssetype"`},
		{"s3://?region=x", "s3 URL without a bucket"},
		{"s3://runs?profile=none&region=x", `s3: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or profile "none" in ` + creds},
		{"gs://runs", `unknown scheme "gs": want one of file://, mem://, s3://`},
		{"file:///nonexistent/dir/of/wrapcheck", "no such file or directory"},
		{"file:///tmp?base_url=/x", `unknown query parameter "base_url"`},
	} {
		t.Run(tt.url, func(t *testing.T) {
			_, err := OpenBucket(context.Background(), tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenBucket(%s) = %v, want an error with %q", tt.url, err, tt.want)
			}
		})
	}
}
