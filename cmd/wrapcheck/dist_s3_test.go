package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// The distributed search against a real S3-compatible server: versitygw,
// an S3 gateway that keeps the objects as files under a directory, run as
// a process of its own on 127.0.0.1 (the in-process fake of package cluster's
// tests is not a second implementation of the protocol's details).
// WRAPCHECK_S3_SERVER names its binary; .ci/run builds it. Without it the
// test skips, except under CI=true, where it fails.

// s3Bucket is the bucket the tests' runs use; each run has its own prefix.
const s3Bucket = "wcrun"

// s3Server is a versitygw started for one test.
type s3Server struct {
	endpoint string // http://127.0.0.1:PORT
	dir      string // the gateway's root: bucket B's key K is the file dir/B/K
}

// url returns the s3:// URL of prefix in the test bucket.
func (s *s3Server) url(prefix string) string {
	return "s3://" + s3Bucket + "?endpoint=" + s.endpoint + "&region=us-east-1&use_path_style=true&prefix=" + prefix + "/"
}

// startS3 starts the S3 server of WRAPCHECK_S3_SERVER on a free port of
// 127.0.0.1 with a temporary root, creates the test bucket, and sets the
// credentials that wrapcheck's S3 client (and the workers it starts) read
// from the environment. The server is killed when the test ends.
func startS3(t *testing.T) *s3Server {
	t.Helper()
	bin := os.Getenv("WRAPCHECK_S3_SERVER")
	if bin == "" {
		msg := "WRAPCHECK_S3_SERVER is not set: it names a versitygw binary for the test against a real S3 server (see docs/distributed.md; .ci/run builds one)"
		testenv.Skip(t, "versitygw", msg)
	}
	const key, secret = "wrapcheck-test", "wrapcheck-test-secret"
	t.Setenv("AWS_ACCESS_KEY_ID", key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin, "--access", key, "--secret", secret, "--region", "us-east-1",
		"--port", addr, "--quiet", "posix", dir)
	var log syncBuffer
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatalf("starting the S3 server %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { srv.Wait(); close(exited) }()
	t.Cleanup(func() {
		srv.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("S3 server output:\n%s", log.String())
		}
	})
	s := &s3Server{endpoint: "http://" + addr, dir: dir}
	// Wait for the listener, then create the bucket.
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("the S3 server exited: %v\n%s", srv.ProcessState, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the S3 server did not listen on %s within a minute\n%s", addr, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := createBucket(s.endpoint, s3Bucket, key, secret, "us-east-1"); err != nil {
		t.Fatal(err)
	}
	return s
}

// syncBuffer is a bytes.Buffer that a process's output goroutines and
// the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// createBucket sends a CreateBucket request, signed with AWS Signature
// Version 4, to the S3 server at endpoint (the test needs no S3 client
// library of its own for one request).
func createBucket(endpoint, bucket, key, secret, region string) error {
	req, err := http.NewRequest(http.MethodPut, endpoint+"/"+bucket, nil)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	stamp, day := now.Format("20060102T150405Z"), now.Format("20060102")
	empty := sha256.Sum256(nil)
	payload := hex.EncodeToString(empty[:])
	const signed = "host;x-amz-content-sha256;x-amz-date"
	canonical := strings.Join([]string{
		http.MethodPut, "/" + bucket, "",
		"host:" + req.URL.Host + "\nx-amz-content-sha256:" + payload + "\nx-amz-date:" + stamp + "\n",
		signed, payload,
	}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	ch := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + hex.EncodeToString(ch[:])
	mac := func(k []byte, s string) []byte {
		h := hmac.New(sha256.New, k)
		h.Write([]byte(s))
		return h.Sum(nil)
	}
	k := mac(mac(mac(mac([]byte("AWS4"+secret), day), region), "s3"), "aws4_request")
	req.Header.Set("x-amz-date", stamp)
	req.Header.Set("x-amz-content-sha256", payload)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+key+"/"+scope+", SignedHeaders="+signed+", Signature="+hex.EncodeToString(mac(k, toSign)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("creating bucket %s: %v", bucket, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("creating bucket %s: %s\n%s", bucket, resp.Status, body)
	}
	return nil
}

// s3Cases are the specs of the S3 test: violated with symmetry and
// partial-order reduction, a spec that holds, a deadlock, LTL properties,
// and the peers' pipeline with several levels of many states.
var s3Cases = []struct {
	path    string
	defines []string
}{
	{"examples/approval/toctou.wrap", nil},
	{"examples/approval/toctou_fixed_snapshot.wrap", nil},
	{"examples/classic/naive_mutex_deadlock.wrap", nil},
	{"examples/classic/peterson_fair.wrap", nil},
	{"examples/peers/pipeline.wrap", []string{"-D", "K=2", "-D", "N=2"}},
}

// TestDistS3: on a real S3 server, check --store s3://... with 1, 2 and 4
// local workers, and a pair of wrapcheck worker processes, print check's
// JSON report byte for byte but the timing and worker fields; the run's
// files are on the server; another run in the same prefix is refused
// (the conditional create of the manifest holds on the server).
func TestDistS3(t *testing.T) {
	s3 := startS3(t)
	root, _ := filepath.Abs("../..")
	for ci, tc := range s3Cases {
		args := append(append([]string{"--format", "json", "--progress", "off"}, tc.defines...), tc.path)
		wantCode, want, wantErr := wrapcheck(t, root, append([]string{"check", "--workers", "1"}, args...)...)
		if wantCode == exitUsage {
			t.Fatalf("check %s: %s", tc.path, wantErr)
		}
		for _, n := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/N%d", tc.path, n), func(t *testing.T) {
				prefix := fmt.Sprintf("c%d-n%d", ci, n)
				a := append([]string{"check", "--store", s3.url(prefix), "--workers-local", fmt.Sprint(n)}, args...)
				code, got, stderr := wrapcheck(t, root, a...)
				if code != wantCode {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
				}
				if diff := cmp.Diff(untimed(want), untimed(got)); diff != "" {
					t.Errorf("check --store s3:// vs check (-want +got):\n%s", diff)
				}
				if _, err := os.Stat(filepath.Join(s3.dir, s3Bucket, prefix, "run.json")); err != nil {
					t.Errorf("the run's manifest is not on the S3 server: %v", err)
				}
			})
		}
		t.Run(tc.path+"/worker-pair", func(t *testing.T) {
			st := s3.url(fmt.Sprintf("c%d-pair", ci))
			var outs [2]syncBuffer
			var cmds [2]*exec.Cmd
			for i := range cmds {
				cmds[i] = exec.Command("wrapcheck", append([]string{"worker", "--store", st, "--index", fmt.Sprint(i), "--workers", "2"}, args...)...)
				cmds[i].Dir = root
				var stderr syncBuffer
				cmds[i].Stdout, cmds[i].Stderr = &outs[i], &stderr
				if err := cmds[i].Start(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if t.Failed() {
						t.Logf("worker %d stderr:\n%s", i, stderr.String())
					}
				}()
			}
			for i, c := range cmds {
				c.Wait()
				if code := c.ProcessState.ExitCode(); code != wantCode {
					t.Errorf("worker %d: exit %d, want %d", i, code, wantCode)
				}
			}
			if diff := cmp.Diff(untimed(want), untimed([]byte(outs[0].String()))); diff != "" {
				t.Errorf("worker 0 of 2 on s3:// vs check (-want +got):\n%s", diff)
			}
			if outs[1].String() != "" {
				t.Errorf("worker 1 printed:\n%s", outs[1].String())
			}
		})
	}
	t.Run("another-run", func(t *testing.T) {
		// c0-n1 holds the run of s3Cases[0] with the defaults.
		a := []string{"check", "--store", s3.url("c0-n1"), "--format", "json", "--no-symmetry", s3Cases[0].path}
		code, stdout, stderr := wrapcheck(t, root, a...)
		if code != exitUsage || !strings.Contains(string(stderr), "holds another run") {
			t.Errorf("exit %d, want 2 and %q; stdout:\n%s\nstderr:\n%s", code, "holds another run", stdout, stderr)
		}
	})
}

// TestDistS3Kill: on a real S3 server, worker 1 of 2 killed with SIGKILL
// while it expands level 5 and started again with the same index resumes,
// and worker 0 reports check's result.
func TestDistS3Kill(t *testing.T) {
	if testenv.Short(t) {
		t.Skip("short")
	}
	s3 := startS3(t)
	root, _ := filepath.Abs("../..")
	const prefix = "kill"
	st := s3.url(prefix)
	base := append(append([]string{"--format", "json", "--progress", "off"}, killSpec.defines...), killSpec.path)
	wantCode, want, _ := wrapcheck(t, root, append([]string{"check", "--workers", "1"}, base...)...)
	start := func(i int) (*exec.Cmd, *syncBuffer) {
		c := exec.Command("wrapcheck", append([]string{"worker", "--store", st, "--index", fmt.Sprint(i), "--workers", "2"}, base...)...)
		c.Dir = root
		out := new(syncBuffer)
		c.Stdout, c.Stderr = out, out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c, out
	}
	w0, out0 := start(0)
	w1, _ := start(1)
	// The gateway keeps key K of the bucket as the file dir/bucket/K.
	summary := filepath.Join(s3.dir, s3Bucket, prefix, "s0", "L000004", "summary-1.wc")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(summary); err == nil {
			break
		}
		if time.Now().After(deadline) {
			w0.Process.Kill()
			w1.Process.Kill()
			t.Fatal("level 4 never committed")
		}
		time.Sleep(time.Millisecond)
	}
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w1.Wait()
	if w1.ProcessState.Success() || w1.ProcessState.ExitCode() == wantCode {
		t.Fatalf("worker 1 finished before it was killed (%v): the test killed nothing", w1.ProcessState)
	}
	w1, out1 := start(1)
	if err := w1.Wait(); err != nil && w1.ProcessState.ExitCode() != wantCode {
		t.Fatalf("restarted worker 1: %v\n%s", err, out1.String())
	}
	if err := w0.Wait(); err != nil && w0.ProcessState.ExitCode() != wantCode {
		t.Fatalf("worker 0: %v\n%s", err, out0.String())
	}
	if diff := cmp.Diff(untimed(want), untimed([]byte(out0.String()))); diff != "" {
		t.Errorf("worker 0 after a killed worker 1 vs check (-want +got):\n%s", diff)
	}
	leases, _ := os.ReadDir(filepath.Join(s3.dir, s3Bucket, prefix, "lease", "1"))
	if len(leases) != 2 {
		t.Errorf("worker 1 took %d leases, want 2", len(leases))
	}
}
