package scale

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// usage is what a process used: its peak resident memory since the last
// reset, and its CPU time.
type usage struct {
	peakRSS uint64 // bytes
	cpu     time.Duration
}

// clockTick is USER_HZ, 100 on every Linux platform Go supports.
const clockTick = 100

// readUsage reads /proc/<pid>/status (VmHWM) and /proc/<pid>/stat (utime
// and stime).
func readUsage(pid int) (usage, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return usage{}, err
	}
	var u usage
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return usage{}, fmt.Errorf("VmHWM %q: %w", v, err)
			}
			u.peakRSS = kb << 10
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return usage{}, err
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from its closing parenthesis; utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return usage{}, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	var ticks uint64
	for _, s := range f[11:13] {
		t, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return usage{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += t
	}
	u.cpu = time.Duration(ticks) * time.Second / clockTick
	return u, nil
}

// resetPeak starts a new peak-RSS period (Linux 4.0+: "5" to clear_refs).
// Where that is not allowed the peak stays the process's lifetime peak,
// which the table then says.
func resetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}
