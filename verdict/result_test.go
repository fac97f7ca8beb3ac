package verdict

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReason checks the words every stop reason is rendered with: they
// are the "reason" of the JSON, SARIF and JUnit outputs and of the text.
func TestReason(t *testing.T) {
	tests := []struct {
		res  Result
		want string
	}{
		{Result{Verdict: Holds}, ""},
		{Result{Verdict: Violated, Stop: StopAtViolation}, ""},
		{Result{Verdict: Unknown, Stop: StopStates}, "state limit"},
		{Result{Verdict: Unknown, Stop: StopDepth}, "depth limit"},
		{Result{Verdict: Unknown, Stop: StopTimeout}, "timeout"},
		{Result{Verdict: Unknown, Stop: StopInterrupted}, "interrupted"},
		{Result{Verdict: Unknown, Stop: StopMemory}, "memory budget"},
		{Result{Verdict: Unknown, Stop: StopIO, StopErr: errors.New("disk full")}, "I/O error of the temporary files: disk full"},
	}
	var got, want []string
	for _, tt := range tests {
		got = append(got, tt.res.Reason())
		want = append(want, tt.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reason (-want +got):\n%s", diff)
	}
}
