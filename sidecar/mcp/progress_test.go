package mcp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/config"
)

// TestReindexProgressProportional: a reindex of a small vault reports its
// progress in steps of about a twentieth, however fast the pass: the
// start, the steps between and the end, each value above the last. Before,
// a vault under 100 notes got two notifications.
// Both backends: the engine in this process, and a sidecar whose
// index.progress events come over the websocket.
func TestReindexProgressProportional(t *testing.T) {
	const n = 79 // not a multiple of 20: the steps are whole notes
	vault := func(t *testing.T) string {
		v := t.TempDir()
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("Notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nFlour, water and salt, note %d.\n", i, i)
		}
		writeNotes(t, v, files)
		return v
	}
	t.Run("local", func(t *testing.T) {
		reindexProgress(t, localBackendFor(t, vault(t), config.Default()), n)
	})
	t.Run("remote", func(t *testing.T) {
		reindexProgress(t, remoteBackendFor(t, vault(t), config.Default()), n)
	})
}

// reindexProgress calls reindex {full: true} on b with a progress token
// and checks the notifications for a vault of n notes.
func reindexProgress(t *testing.T, b Backend, n int) {

	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	final := make(chan struct{})
	ct, stt := sdk.NewInMemoryTransports()
	ss, err := NewServer(b, Options{Version: "test"}).Connect(context.Background(), stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cl := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
			if req.Params.Total > 0 && req.Params.Progress >= req.Params.Total {
				select {
				case <-final:
				default:
					close(final)
				}
			}
		},
	})
	cs, err := cl.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	params := &sdk.CallToolParams{Name: "reindex", Arguments: map[string]any{"full": true}}
	params.SetProgressToken("tok")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("reindex: %v %s", err, text(res))
	}
	select {
	case <-final:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	var last float64 = -1
	for i, p := range got {
		if p.Progress <= last {
			t.Errorf("notification %d: %v after %v", i, p.Progress, last)
		}
		last = p.Progress
	}
	if len(got) < 20 {
		for _, p := range got {
			t.Logf("%v/%v %s", p.Progress, p.Total, p.Message)
		}
		t.Fatalf("%d notifications for a reindex of %d notes, want at least 20", len(got), n)
	}
	if l := got[len(got)-1]; l.Total != float64(n) || l.Progress != float64(n) {
		t.Errorf("last notification %v/%v %q, want %d/%d", l.Progress, l.Total, l.Message, n, n)
	}
}
