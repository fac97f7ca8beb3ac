//go:build !unix

package cluster

import "time"

// processCPU is 0 where the process's CPU time is not read: a
// [Recorder]'s CPU columns are then 0.
func processCPU() time.Duration { return 0 }
