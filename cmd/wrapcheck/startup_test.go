package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoHeavyModules fails when the default binary links a module whose
// package initialisers cost start-up. Go runs the initialiser of every
// linked package before main, so such a module costs every `wrapcheck
// check`, used or not: the AWS SDK, gRPC, protobuf and OpenTelemetry that
// gocloud.dev/blob and its s3blob driver linked were 120 packages and
// 1.5 ms of initialisers, and `check` of the README example took 5.7 ms
// more at the minimum (15.6 ms, against the target of 10 ms:
// docs/performance.md, "Start-up"). Drivers that need them belong behind
// a build tag (cluster's gocloud tag).
func TestNoHeavyModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: ", err)
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	heavy := []string{
		"gocloud.dev",
		"github.com/aws/",
		"google.golang.org/grpc",
		"google.golang.org/protobuf",
		"google.golang.org/genproto",
		"google.golang.org/api",
		"go.opentelemetry.io/",
		"cloud.google.com/",
		"github.com/Azure/",
		"github.com/minio/",
	}
	var bad []string
	for _, pkg := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(pkg, h) {
				bad = append(bad, pkg)
				break
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("the default wrapcheck binary links %d packages of modules that slow every process's start-up "+
			"(their package initialisers run before main, whatever the command): %s\n"+
			"keep them out of the default build (a build tag, as cluster's gocloud), or measure start-up "+
			"(bench/startup.sh) and change this list in review", len(bad), strings.Join(bad, ", "))
	}
}
