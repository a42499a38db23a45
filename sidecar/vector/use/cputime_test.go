package use

import (
	"time"

	"github.com/quire-app/quire/sidecar/internal/cputime"
)

// cpuTime is the process's CPU time, for benchmarks' per-CPU-second rates.
func cpuTime() time.Duration { return cputime.Process() }
