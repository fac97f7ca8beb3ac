package checker

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(l)[0], "-"); ok && !strings.HasSuffix(lo, ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if in && strings.HasPrefix(l, "VmFlags:") {
			return strings.Fields(l)[1:]
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}

// TestAdviseHuge checks that a table of the fingerprint set's size class
// is advised MADV_HUGEPAGE ("hg" in its mapping's flags), and that the
// advice leaves the table's contents alone.
func TestAdviseHuge(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skip("transparent huge pages are off")
	}
	for _, n := range []int{hugePageMin / 8, 3 << 20 / 8, 8 << 20 / 8} {
		tab := make([]uint64, n)
		adviseHuge(tab)
		for i := range tab {
			tab[i] = uint64(i)
		}
		for _, at := range []int{0, n / 2, n - 1} {
			flags := vmFlags(t, uintptr(unsafe.Pointer(&tab[at])))
			if !strings.Contains(" "+strings.Join(flags, " ")+" ", " hg ") {
				t.Errorf("table of %d bytes, slot %d: VmFlags %v, want hg", 8*n, at, flags)
			}
			if tab[at] != uint64(at) {
				t.Errorf("table of %d bytes, slot %d = %d", 8*n, at, tab[at])
			}
		}
	}
}
