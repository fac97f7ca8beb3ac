package report

import (
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestMain ends the package's output with the tests skipped for a missing
// tool, if any.
func TestMain(m *testing.M) { testenv.Main(m) }
