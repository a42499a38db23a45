package main

import (
	"cmp"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
)

// loadQueries are things a user of the sample vault would search for.
var loadQueries = []string{
	"sourdough starter", "feeding ratio", "bread that spread flat", "fresh pasta dough",
	"egg yolks flour", "Lisbon trams", "pastel de nata", "monstera watering",
	"yellow leaves", "tomatoes", "rajčata", "stocks and flows",
	"systems thinking", "daily note template", "hydration", "levain overnight",
	"room temperature", "repotting", "leverage points", "bulk fermentation",
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkServeLoad runs `quire serve` on a copy of sample-vault/ as a
// child process and drives it over loopback with QUIRE_LOAD_CLIENTS
// (default 50) concurrent clients, each issuing search.query back to back
// for QUIRE_LOAD_SECONDS (default 30) on QUIRE_LOAD_CHANNEL (default bm25;
// hybrid embeds every query). It reports throughput, latency percentiles,
// errors and the sidecar's peak RSS. One run per invocation:
//
//	go test -run '^$' -bench BenchmarkServeLoad -benchtime 1x ./cmd/quire
//
// scripts/bench-server wraps it.
func BenchmarkServeLoad(b *testing.B) {
	clients := envInt("QUIRE_LOAD_CLIENTS", 50)
	dur := time.Duration(envInt("QUIRE_LOAD_SECONDS", 30)) * time.Second
	channel := proto.Channel(os.Getenv("QUIRE_LOAD_CHANNEL"))
	if channel == "" {
		channel = proto.ChannelBM25
	}
	vault := b.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "..", "sample-vault"))
	if err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("cp", "-R", src+"/.", vault).CombinedOutput(); err != nil {
		b.Fatalf("copy sample vault: %v: %s", err, out)
	}
	st := b.TempDir()
	if channel == proto.ChannelBM25 {
		keywordsOnly(b, st)
	}
	c := startQuire(b, "serve", "--vault", vault, "--state", st)
	first, _ := attachTo(b, c, st)
	waitIdle(b, first, 5*time.Minute)

	for range b.N {
		conns := make([]*client.Client, clients)
		for i := range conns {
			conns[i], _ = attachTo(b, c, st)
		}
		var (
			mu      sync.Mutex
			lat     []time.Duration
			errs    atomic.Int64
			firstEr atomic.Value
			// byErr counts the failures by message: a load test that
			// fails must say which requests failed, not only the first.
			byErr = map[string]int{}
		)
		ctx, cancel := context.WithTimeout(context.Background(), dur)
		b.ResetTimer()
		began := time.Now()
		var wg sync.WaitGroup
		for i, cl := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				for n := i; ctx.Err() == nil; n++ {
					q := proto.SearchQuery{Query: loadQueries[n%len(loadQueries)], K: 10, Channel: channel}
					t0 := time.Now()
					res, err := cl.Search(context.Background(), q)
					if err == nil && len(res.Passages) == 0 {
						err = errors.New("no passages for " + q.Query)
					}
					if err != nil {
						errs.Add(1)
						firstEr.CompareAndSwap(nil, err.Error())
						mu.Lock()
						byErr[err.Error()]++
						mu.Unlock()
						continue
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		elapsed := time.Since(began)
		cancel()
		b.StopTimer()

		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		pct := func(p float64) float64 {
			if len(lat) == 0 {
				return 0
			}
			return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
		}
		rss := peakRSS(c.cmd.Process.Pid)
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
		b.ReportMetric(pct(0.50), "p50-ms")
		b.ReportMetric(pct(0.99), "p99-ms")
		b.ReportMetric(float64(errs.Load()), "errors")
		b.ReportMetric(float64(rss)/1024, "peak-RSS-MB")
		b.Logf("%d clients, %s, channel %s: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors, sidecar peak RSS %d MB",
			clients, elapsed.Round(time.Millisecond), channel, len(lat), float64(len(lat))/elapsed.Seconds(), pct(0.5), pct(0.99), pct(1), errs.Load(), rss/1024)
		if n := errs.Load(); n > 0 {
			b.Errorf("%d requests failed, first: %v", n, firstEr.Load())
			msgs := make([]string, 0, len(byErr))
			for m := range byErr {
				msgs = append(msgs, m)
			}
			sort.Strings(msgs)
			for _, m := range msgs {
				b.Logf("%d× %s", byErr[m], m)
			}
		}
		for _, cl := range conns {
			cl.Close()
		}
	}
}

// peakRSS returns a process's peak resident set in KiB (Linux), or 0.
func peakRSS(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}

// BenchmarkServePipelined is the load case of red-team findings:
// QUIRE_LOAD_CLIENTS (default 10) connections each send
// QUIRE_LOAD_PIPELINE (default 100) search.query at once with k=100, on
// QUIRE_LOAD_CHANNEL (default hybrid, the heaviest: every query embedded),
// or ask.query (extracted: no model) when QUIRE_LOAD_KIND is ask. It
// reports the sidecar's peak RSS and the connections dropped (a status
// call on each afterwards fails), and fails on any error or drop, or when
// the peak passes 600 MB. scripts/bench-server pipelined wraps it.
func BenchmarkServePipelined(b *testing.B) {
	clients := envInt("QUIRE_LOAD_CLIENTS", 10)
	pipeline := envInt("QUIRE_LOAD_PIPELINE", 100)
	kind := cmp.Or(os.Getenv("QUIRE_LOAD_KIND"), "search")
	channel := proto.Channel(os.Getenv("QUIRE_LOAD_CHANNEL"))
	if channel == "" {
		channel = proto.ChannelHybrid
	}
	vault := b.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "..", "sample-vault"))
	if err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("cp", "-R", src+"/.", vault).CombinedOutput(); err != nil {
		b.Fatalf("copy sample vault: %v: %s", err, out)
	}
	st := b.TempDir()
	if channel == proto.ChannelBM25 {
		keywordsOnly(b, st)
	}
	c := startQuire(b, "serve", "--vault", vault, "--state", st)
	first, _ := attachTo(b, c, st)
	waitIdle(b, first, 5*time.Minute)
	base := peakRSS(c.cmd.Process.Pid)

	for range b.N {
		conns := make([]*client.Client, clients)
		for i := range conns {
			conns[i], _ = attachTo(b, c, st)
		}
		var errs atomic.Int64
		var firstEr atomic.Value
		b.ResetTimer()
		began := time.Now()
		var wg sync.WaitGroup
		for i, cl := range conns {
			for n := range pipeline {
				wg.Add(1)
				go func() {
					defer wg.Done()
					text := loadQueries[(i+n)%len(loadQueries)]
					var err error
					if kind == "ask" {
						var done proto.AskDone
						err = cl.Stream(context.Background(), proto.TypeAskQuery, proto.AskQuery{Question: text, Channel: channel},
							func(proto.Envelope) error { return nil }, &done)
					} else {
						_, err = cl.Search(context.Background(), proto.SearchQuery{Query: text, K: 100, Channel: channel})
					}
					if err != nil {
						errs.Add(1)
						firstEr.CompareAndSwap(nil, err.Error())
					}
				}()
			}
		}
		wg.Wait()
		elapsed := time.Since(began)
		b.StopTimer()
		rss := peakRSS(c.cmd.Process.Pid)
		dropped := 0
		for _, cl := range conns {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if _, err := cl.Status(ctx); err != nil {
				dropped++
			}
			cancel()
		}
		b.ReportMetric(float64(errs.Load()), "errors")
		b.ReportMetric(float64(dropped), "dropped")
		b.ReportMetric(float64(rss)/1024, "peak-RSS-MB")
		b.Logf("%d connections × %d pipelined %s, channel %s: %s, %d errors, %d connections dropped, sidecar peak RSS %d MB (%d MB before)",
			clients, pipeline, kind, channel, elapsed.Round(time.Millisecond), errs.Load(), dropped, rss/1024, base/1024)
		if n := errs.Load(); n > 0 {
			b.Errorf("%d requests failed, first: %v", n, firstEr.Load())
		}
		if dropped > 0 {
			b.Errorf("%d of %d connections dropped", dropped, clients)
		}
		if rss > 600*1024 {
			b.Errorf("peak RSS %d MB, over 600 MB", rss/1024)
		}
		for _, cl := range conns {
			cl.Close()
		}
	}
}
