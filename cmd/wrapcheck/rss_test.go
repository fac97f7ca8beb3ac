package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// peakRSS follows the peak resident set of the child c, which must have
// started, until the returned function is called after c.Wait: it gives
// the peak in bytes. On Linux the child's own peak (VmHWM of its
// /proc/PID/status, sampled every 5 ms) is used: the rusage's Maxrss of a
// child that os/exec started counts the test process's resident set too,
// since the child shares its memory until it executes the binary and the
// kernel keeps that peak. Elsewhere it is the rusage's Maxrss.
func peakRSS(c *exec.Cmd) func() int64 {
	if runtime.GOOS != "linux" {
		return func() int64 {
			if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
				if runtime.GOOS == "darwin" {
					return int64(ru.Maxrss) // bytes
				}
				return int64(ru.Maxrss) << 10
			}
			return 0
		}
	}
	status := fmt.Sprintf("/proc/%d/status", c.Process.Pid)
	var (
		mu   sync.Mutex
		peak int64
	)
	sample := func() {
		b, err := os.ReadFile(status)
		if err != nil {
			return
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := bytes.Fields(sc.Bytes())
			if len(f) >= 2 && string(f[0]) == "VmHWM:" {
				if kb, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
					mu.Lock()
					peak = max(peak, kb<<10)
					mu.Unlock()
				}
			}
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
