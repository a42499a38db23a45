package worker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
)

// The kill test re-runs this test binary as a child (TestWorkerChild with
// QUIRE_WORKER_CHILD set) that ingests a page with a model that never
// finishes reading, SIGKILLs it there, and resumes in this process.
const envWorkerChild = "QUIRE_WORKER_CHILD" // "vault|queue"

// TestWorkerChild is not a test: it is the body of the child process.
func TestWorkerChild(t *testing.T) {
	paths := os.Getenv(envWorkerChild)
	if paths == "" {
		t.Skip("child process for TestKillDuringReading")
	}
	vault, queue, _ := strings.Cut(paths, "|")
	m := newScripted(t)
	m.hold, m.reading = make(chan struct{}), make(chan struct{}, 1)
	site := newSite(t)
	site.serve("/soil", "text/html", e2eArticle())
	q, err := ingest.OpenQueue(queue)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	r := &rig{t: t, vault: vault, site: site, ev: newRecorder()}
	o := Options{Queue: q, Fetch: site.client(), Vault: vault, Folder: "Quire", Events: r.ev.sink, Inbox: -1}
	withCompiler(m)(&o, r)
	w := New(o)
	if _, _, err := w.Add("http://site.example/soil", false); err != nil {
		fmt.Println("add:", err)
		os.Exit(2)
	}
	go w.Run(context.Background())
	<-m.reading
	fmt.Println("reading")
	select {}
}

func TestKillDuringReading(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	vault, queue := t.TempDir(), filepath.Join(t.TempDir(), "queue")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerChild$")
	cmd.Env = append(os.Environ(), envWorkerChild+"="+vault+"|"+queue)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	said := make(chan string, 1)
	go func() {
		lines.Scan()
		said <- lines.Text()
	}()
	select {
	case s := <-said:
		if s != "reading" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child said %q", s)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("child did not reach the reading step in 30s")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	// No half-written note: the source was saved, nothing was compiled.
	notes, _ := filepath.Glob(filepath.Join(vault, "Quire", "*", "*.md"))
	index, _ := filepath.Glob(filepath.Join(vault, "Quire", "*.md"))
	if len(notes)+len(index) != 0 {
		t.Fatalf("notes written before the kill: %v %v", notes, index)
	}

	// Restart: the item is back in the queue with no attempt counted, and
	// the rerun completes.
	m := newScripted(t)
	reopen := func(o *Options, r *rig) {
		o.Queue.Close()
		q, err := ingest.OpenQueue(queue)
		if err != nil {
			t.Fatalf("reopen after kill: %v", err)
		}
		t.Cleanup(func() { q.Close() })
		o.Queue = q
		o.Vault, r.vault = vault, vault
	}
	r := newRig(t, reopen, withCompiler(m))
	r.w.compile = compile.Compile
	it, err := r.w.Queue().Get(1)
	if err != nil || it.State != ingest.StateQueued || it.Attempts != 0 {
		t.Fatalf("item after kill: %+v, %v; want queued with 0 attempts", it, err)
	}
	r.site.serve("/soil", "text/html", e2eArticle())
	r.run()
	d := wantDone(t, r.ev.finished(t, it.ID))
	wantCompiled(t, r, d)
	if raws, _ := os.ReadDir(filepath.Join(vault, "Quire", "raw")); len(raws) != 1 {
		t.Errorf("raw/ holds %d originals after the rerun, want 1", len(raws))
	}
}
