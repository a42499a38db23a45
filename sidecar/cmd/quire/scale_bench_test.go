package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
)

// BenchmarkScale measures what one edit and one one-shot search cost as
// the vault grows: for genvault vaults of each size in QUIRE_SCALE_NOTES
// (default "1000,20000"), keywords only, the sidecar CPU time from one
// edit to the edit being found by a search under `quire serve`, and the
// CPU and wall time of a one-shot `quire search` with no sidecar running.
// Each figure is the median of QUIRE_SCALE_REPEAT (default 5) tries. CPU
// time, not wall, is what says whether work follows the change or the
// vault on a shared machine; the wall time of the one-shot search is
// reported for the idle-machine target. The binary run is
// QUIRE_SCALE_BIN when set (scripts/bench-scale builds a release one),
// else this test binary acting as quire.
//
//	go test -run '^$' -bench '^BenchmarkScale$' -benchtime 1x ./cmd/quire
func BenchmarkScale(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads the sidecar's CPU time from /proc")
	}
	var sizes []int
	for _, s := range strings.Split(cmpEnv("QUIRE_SCALE_NOTES", "1000,20000"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			b.Fatalf("QUIRE_SCALE_NOTES: bad size %q", s)
		}
		sizes = append(sizes, n)
	}
	repeat := envInt("QUIRE_SCALE_REPEAT", 5)
	for range b.N {
		for _, n := range sizes {
			edit, oneCPU, oneWall := scaleVault(b, n, repeat)
			b.Logf("%6d notes: edit searchable %7.1f ms CPU (sidecar); one-shot search %7.1f ms CPU, %7.1f ms wall", n, ms(edit), ms(oneCPU), ms(oneWall))
			b.ReportMetric(ms(edit), fmt.Sprintf("edit-cpu-ms/%d", n))
			b.ReportMetric(ms(oneCPU), fmt.Sprintf("search-cpu-ms/%d", n))
			b.ReportMetric(ms(oneWall), fmt.Sprintf("search-wall-ms/%d", n))
		}
	}
}

func cmpEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// scaleBin is the quire binary the scale benchmark runs, with the
// environment that makes it act as quire.
func scaleBin(args ...string) *exec.Cmd {
	if bin := os.Getenv("QUIRE_SCALE_BIN"); bin != "" {
		return exec.Command(bin, args...)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "QUIRE_TEST_AS_QUIRE=1")
	return cmd
}

// scaleVault writes and indexes a vault of n notes and returns the median
// sidecar CPU of an edit becoming searchable, and the median CPU and wall
// time of a one-shot search.
func scaleVault(b *testing.B, n, repeat int) (edit, oneCPU, oneWall time.Duration) {
	vault, st := b.TempDir(), b.TempDir()
	paths, err := vaultgen.Write(vault, vaultgen.Options{Notes: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	keywordsOnly(b, st)
	if out, err := scaleBin("index", "--vault", vault, "--state", st).CombinedOutput(); err != nil {
		b.Fatalf("index %d notes: %v\n%s", n, err, out)
	}
	qs, err := vaultgen.Queries(vault, paths, repeat, 1, 2)
	if err != nil {
		b.Fatal(err)
	}

	var cpus, walls []time.Duration
	for _, q := range qs {
		cmd := scaleBin("search", "--vault", vault, "--state", st, q.Query)
		began := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("search %q: %v\n%s", q.Query, err, out)
		}
		walls = append(walls, time.Since(began))
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	oneCPU, oneWall = median(cpus), median(walls)

	cmd := scaleBin("serve", "--vault", vault, "--state", st)
	c := &child{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { c.exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-c.exited
	}()
	cl, cf := attachTo(b, c, st)
	waitIdle(b, cl, 5*time.Minute)
	time.Sleep(time.Second) // the search lists' warm-up after the first pass

	var edits []time.Duration
	for i := range repeat {
		p := paths[(i*7919)%len(paths)]
		word := fmt.Sprintf("zqscale%dx%d", n, i)
		before := threadsCPU(b, cf.PID)
		changed := awaitChanged(cl, p)
		f, err := os.OpenFile(filepath.Join(vault, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fmt.Fprintf(f, "\nA new line with %s in it.\n", word); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		select {
		case <-changed:
		case <-time.After(time.Minute):
			b.Fatalf("no index.changed for %s after a minute", p)
		}
		res, err := cl.Search(context.Background(), proto.SearchQuery{Query: word, Channel: proto.ChannelBM25})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Passages) == 0 || res.Passages[0].Path != p {
			b.Fatalf("search %s after the edit of %s: %+v", word, p, res.Passages)
		}
		edits = append(edits, threadsCPU(b, cf.PID)-before)
	}
	return median(edits), oneCPU, oneWall
}

// awaitChanged returns a channel closed when the sidecar says p changed.
func awaitChanged(cl *client.Client, p string) <-chan struct{} {
	done := make(chan struct{})
	var stop func()
	stop = cl.OnEvent(func(env proto.Envelope) {
		var ch proto.IndexChanged
		if env.Type != proto.TypeIndexChanged || env.Decode(&ch) != nil || !slices.Contains(ch.Paths, p) {
			return
		}
		select {
		case <-done:
		default:
			close(done)
			go stop()
		}
	})
	return done
}

// threadsCPU is the CPU time all of pid's threads have run, from the
// scheduler's nanosecond counters (the tick-based ones are 10 ms coarse).
func threadsCPU(b *testing.B, pid int) time.Duration {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		b.Fatalf("threads of %d: %v", pid, err)
	}
	var sum time.Duration
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just ended
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			continue
		}
		ns, _ := strconv.ParseInt(f[0], 10, 64)
		sum += time.Duration(ns)
	}
	return sum
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
