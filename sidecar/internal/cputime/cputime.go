// Package cputime reads the process's CPU time, so that benchmarks on a
// shared machine can report work per CPU-second as well as per wall
// second.
package cputime

import "time"

// Process is the process's user+system time so far; 0 where it cannot be
// read.
func Process() time.Duration { return process() }
