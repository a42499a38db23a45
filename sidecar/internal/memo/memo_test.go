package memo

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestGetRemembers: every value is f's, f runs once per key while the
// table holds it, a key that lost its slot is computed again, and
// goroutines share the table (run with -race).
func TestGetRemembers(t *testing.T) {
	tab := New[string](64)
	var mu sync.Mutex
	calls := map[string]int{}
	upper := func(s string) string {
		mu.Lock()
		calls[s]++
		mu.Unlock()
		return strings.ToUpper(s)
	}
	for range 3 {
		if got := tab.Get("word", upper); got != "WORD" {
			t.Fatalf("got %q", got)
		}
		if got := tab.GetBytes([]byte("byte"), upper); got != "BYTE" {
			t.Fatalf("got %q", got)
		}
	}
	if calls["word"] != 1 || calls["byte"] != 1 {
		t.Errorf("f ran %v times", calls)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				k := strconv.Itoa((i * (g + 1)) % 500)
				if got := tab.Get(k, upper); got != k {
					t.Errorf("%q: got %q", k, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	// 500 keys in 64 slots: some were pushed out and computed again.
	mu.Lock()
	defer mu.Unlock()
	again := 0
	for k, n := range calls {
		if n > 1 && k != "word" && k != "byte" {
			again++
		}
	}
	if again == 0 {
		t.Error("no key was computed twice in a table 8 times too small")
	}
}

// TestKeyCopied: a key is stored as a copy, so the text it was cut from
// (a note, a reused buffer) can change or go.
func TestKeyCopied(t *testing.T) {
	tab := New[int](8)
	buf := []byte("stem")
	tab.GetBytes(buf, func(s string) int { return len(s) })
	copy(buf, "xxxx")
	if got := tab.Get("stem", func(string) int { return -1 }); got != 4 {
		t.Errorf("got %d, want the remembered 4", got)
	}
}
