package ingest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The crash tests re-run this test binary as a child (TestQueueChild with
// QUIRE_QUEUE_CHILD set), SIGKILL it at a chosen or random moment, and
// reopen the queue it was writing.
const (
	envChild = "QUIRE_QUEUE_CHILD"
	envPath  = "QUIRE_QUEUE_PATH"
)

// TestQueueChild is not a test: it is the body of the child process.
func TestQueueChild(t *testing.T) {
	mode := os.Getenv(envChild)
	if mode == "" {
		t.Skip("child process for the crash tests")
	}
	q, err := OpenQueue(os.Getenv(envPath))
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	switch mode {
	case "midclaim":
		// Stop inside Claim's transaction: the item is marked running in
		// the transaction but nothing is committed.
		claimHook = func(it Item) {
			fmt.Printf("claiming %d\n", it.ID)
			select {}
		}
		q.Claim()
	case "claimed":
		it, _, _ := q.Claim()
		fmt.Printf("claimed %d\n", it.ID)
		select {}
	case "stress":
		stress(q)
	}
	os.Exit(3)
}

// stress runs every queue operation in a loop, printing each one after it
// commits, until the parent kills the process.
func stress(q *Queue) {
	fmt.Println("ready")
	round := os.Getenv("QUIRE_QUEUE_ROUND")
	for i := 0; ; i++ {
		if _, err := q.Add(fmt.Sprintf("https://example.org/%s/%d?utm_source=x", round, i)); err != nil {
			fmt.Println("error", err)
			os.Exit(4)
		}
		it, ok, err := q.Claim()
		if err != nil || !ok {
			fmt.Println("error claim", ok, err)
			os.Exit(4)
		}
		switch it.ID % 4 {
		case 0:
			q.Complete(it.ID, "note.md")
		case 1:
			q.SetTextHash(it.ID, fmt.Sprintf("h%d", it.ID))
			if q.Fail(it.ID, "boom") == nil {
				fmt.Printf("fail %d %d\n", it.ID, it.Attempts+1)
			}
			q.Retry(it.ID)
		case 2:
			if q.Fail(it.ID, "boom") == nil {
				fmt.Printf("fail %d %d\n", it.ID, it.Attempts+1)
			}
		case 3:
			// left running: the next open recovers it
		}
	}
}

func startChild(t *testing.T, mode, path string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestQueueChild$")
	cmd.Env = append(os.Environ(), append(env, envChild+"="+mode, envPath+"="+path)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

// kill SIGKILLs the child, hands every line it printed to each (Wait closes
// the pipe, so they are read first) and reaps it.
func kill(t *testing.T, cmd *exec.Cmd, out *bufio.Scanner, each func(string)) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for out.Scan() {
		if each != nil {
			each(out.Text())
		}
	}
	cmd.Wait()
}

func seed(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "queue")
	q, err := OpenQueue(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		mustAdd(t, q, fmt.Sprintf("https://example.org/%d", i))
	}
	q.Close()
	return path
}

func TestKillMidClaim(t *testing.T) {
	for _, mode := range []string{"midclaim", "claimed"} {
		t.Run(mode, func(t *testing.T) {
			path := seed(t, 2)
			cmd, out := startChild(t, mode, path)
			if !out.Scan() {
				t.Fatalf("child said nothing: %v", out.Err())
			}
			if got := out.Text(); !strings.HasSuffix(got, " 1") {
				t.Fatalf("child said %q", got)
			}
			kill(t, cmd, out, nil)

			q, err := OpenQueue(path)
			if err != nil {
				t.Fatalf("reopen after kill: %v", err)
			}
			defer q.Close()
			checkInvariants(t, q)
			it, err := q.Get(1)
			if err != nil {
				t.Fatal(err)
			}
			if it.State != StateQueued || it.Attempts != 0 {
				t.Errorf("item 1 after kill: %s with %d attempts, want queued with 0", it.State, it.Attempts)
			}
			// The queue resumes: the interrupted item is claimed first.
			if it, ok, err := q.Claim(); !ok || err != nil || it.ID != 1 {
				t.Errorf("Claim after reopen = %d, %v, %v; want item 1", it.ID, ok, err)
			}
		})
	}
}

func TestKillStress(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "queue")
	failsSeen := map[uint64]int{} // attempts reported after committed Fails
	for round := range 20 {
		cmd, out := startChild(t, "stress", path, "QUIRE_QUEUE_ROUND="+strconv.Itoa(round))
		if !out.Scan() || out.Text() != "ready" {
			t.Fatalf("round %d: child did not start: %q %v", round, out.Text(), out.Err())
		}
		time.Sleep(time.Duration(5+rand.IntN(60)) * time.Millisecond)
		lines := 0
		kill(t, cmd, out, func(line string) {
			lines++
			var id uint64
			var n int
			if _, err := fmt.Sscanf(line, "fail %d %d", &id, &n); err != nil {
				t.Fatalf("round %d: child said %q", round, line)
			}
			failsSeen[id] = n
		})

		q, err := OpenQueue(path)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		checkInvariants(t, q)
		items, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			// The last Fail may have committed before its line was printed.
			if seen := failsSeen[it.ID]; it.Attempts != seen && it.Attempts != seen+1 {
				t.Errorf("round %d: item %d has %d attempts, child reported %d", round, it.ID, it.Attempts, seen)
			}
		}
		t.Logf("round %d: %d items, %d fails reported", round, len(items), lines)
		q.Close()
		if t.Failed() {
			return
		}
	}
}
