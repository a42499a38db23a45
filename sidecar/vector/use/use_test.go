package use

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// oracleCase is one entry of testdata/oracle.json, written by
// scripts/use-oracle from the TF.js reference.
type oracleCase struct {
	Name   string    `json:"name"`
	Text   string    `json:"text"`
	IDs    []int32   `json:"ids"`
	Vector []float32 `json:"vector"`
	Error  string    `json:"error"`
}

func loadOracle(t *testing.T) []oracleCase {
	t.Helper()
	b, err := os.ReadFile("testdata/oracle.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []oracleCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("oracle has no cases")
	}
	return doc.Cases
}

func mustLoad(t testing.TB) *Model {
	t.Helper()
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func TestTokenizerMatchesReference(t *testing.T) {
	m := mustLoad(t)
	for _, c := range loadOracle(t) {
		t.Run(c.Name, func(t *testing.T) {
			got := m.tok.encode(c.Text)
			if !slices.Equal(got, c.IDs) {
				t.Errorf("encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
			}
		})
	}
}

// TestVectorsMatchReference feeds the reference's own ids (so the raw text,
// without Embed's lower-casing) through the Go network, with the kernels
// this machine runs by default.
func TestVectorsMatchReference(t *testing.T) {
	t.Logf("kernel: %s", kernelName())
	testVectorsAt(t, mustLoad(t), defaultBar())
}

// defaultBar is the cosine to the reference the default kernels meet:
// 0.9999 in float, 0.999 with int8 weights.
func defaultBar() float64 {
	if haveInt8 {
		return 0.999
	}
	return 0.9999
}

// TestPortableKernelMatchesReference runs the plain Go kernels, on a model
// decoded for them (float32 weights), as processors without assembly
// kernels do.
func TestPortableKernelMatchesReference(t *testing.T) {
	testVectors(t, loadKernel(t, "portable"))
}

// TestSSEKernelMatchesReference runs the SSE kernels, which amd64
// processors without AVX2 use.
func TestSSEKernelMatchesReference(t *testing.T) {
	if !sseOK {
		t.Skip("no SSE kernels on this processor")
	}
	testVectors(t, loadKernel(t, "sse"))
}

// loadKernel decodes a model for the named kernels and leaves those
// kernels selected until the test ends.
func loadKernel(t testing.TB, kernel string) *Model {
	t.Helper()
	saved := kernelName()
	setKernel(kernel)
	t.Cleanup(func() { setKernel(saved) })
	m, err := decode(weightsFile)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func testVectors(t *testing.T, m *Model) { testVectorsAt(t, m, 0.9999) }

// testVectorsAt checks that every reference vector is within cosine bar.
func testVectorsAt(t *testing.T, m *Model, bar float64) {
	cases := loadOracle(t)
	var ids [][]int32
	var want [][]float32
	var names []string
	for _, c := range cases {
		if c.Error != "" {
			continue
		}
		ids = append(ids, slices.Clone(c.IDs))
		want = append(want, c.Vector)
		names = append(names, c.Name)
	}
	got, err := m.embedIDs(context.Background(), ids, runtime.GOMAXPROCS(0), false)
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i := range got {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s: got %d dims, want %d", names[i], len(got[i]), len(want[i]))
		}
		c := cosine(got[i], want[i])
		worst = min(worst, c)
		if c < bar {
			t.Errorf("%s: cosine to reference %.6f, want ≥ %v", names[i], c, bar)
		}
	}
	t.Logf("worst cosine to reference over %d cases: %.7f", len(got), worst)
}

func TestEmbedLowerCases(t *testing.T) {
	m := mustLoad(t)
	got, err := m.Embed(context.Background(), []string{"THE Quick BROWN fox"})
	if err != nil {
		t.Fatal(err)
	}
	var want []float32
	for _, c := range loadOracle(t) {
		if c.Name == "lower-case" {
			want = c.Vector
		}
	}
	if c := cosine(got[0], want); c < defaultBar() {
		t.Errorf("cosine(Embed(mixed case), reference(lower case)) = %.6f, want ≥ %v", c, defaultBar())
	}
}

func TestEmbedEmptyIsUnitVector(t *testing.T) {
	m := mustLoad(t)
	got, err := m.Embed(context.Background(), []string{"", "cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != m.Dims() {
		t.Fatalf("got %d vectors of %d dims, want 2 of %d", len(got), len(got[0]), m.Dims())
	}
	var n float64
	for _, v := range got[0] {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("empty text: non-finite component %v", v)
		}
		n += float64(v) * float64(v)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Errorf("empty text: squared norm %v, want 1", n)
	}
}

// TestBatchMatchesSingle checks that grouping texts (and the staging of row
// counts that are not multiples of six) does not change any vector.
func TestBatchMatchesSingle(t *testing.T) {
	m := mustLoad(t)
	var texts []string
	for _, c := range loadOracle(t) {
		texts = append(texts, c.Text)
	}
	batch, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		one, err := m.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(one[0], batch[i]); c < 0.999999 {
			t.Errorf("%q: cosine(single, batch) = %.7f, want ≈ 1", text, c)
		}
	}
}

func TestEmbedConcurrent(t *testing.T) {
	m := mustLoad(t)
	texts := []string{"cheese rind humidity", "Come posso evitare che il formaggio si secchi?", "🧀"}
	want, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				got, err := m.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for j := range got {
					if !slices.Equal(got[j], want[j]) {
						t.Errorf("concurrent Embed(%q) differs", texts[j])
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestEmbedCancelled(t *testing.T) {
	m := mustLoad(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, []string{"cheese"}); err == nil {
		t.Error("Embed with a cancelled context: got nil error")
	}
}

func TestCountTokens(t *testing.T) {
	m := mustLoad(t)
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"the quick brown fox", 5},
		{"THE QUICK BROWN FOX", 5}, // lower-cased first, like Embed
	}
	for _, tt := range tests {
		if got := m.CountTokens(tt.text); got != tt.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
	for _, c := range loadOracle(t) {
		if c.Name == "long" && m.CountTokens(c.Text) <= m.MaxTokens() {
			t.Errorf("long case: CountTokens = %d, want > %d", m.CountTokens(c.Text), m.MaxTokens())
		}
	}
}

func TestModelFacts(t *testing.T) {
	m := mustLoad(t)
	if got, want := m.Name(), "use-lite@0.2.0"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	if got, want := m.Dims(), 512; got != want {
		t.Errorf("Dims() = %d, want %d", got, want)
	}
	if got, want := m.MaxTokens(), 128; got != want {
		t.Errorf("MaxTokens() = %d, want %d", got, want)
	}
}

// TestCountTokensAddsUpOverWords pins the property chunkers may lean on: no
// piece spans a space, so the count of words joined by single spaces is the
// sum of the words' counts.
func TestCountTokensAddsUpOverWords(t *testing.T) {
	m := mustLoad(t)
	texts := []string{passage(0), passage(3)}
	for _, c := range loadOracle(t) {
		texts = append(texts, c.Text)
	}
	for _, text := range texts {
		words := strings.Fields(text)
		sum := 0
		for _, w := range words {
			sum += m.CountTokens(w)
		}
		if got := m.CountTokens(strings.Join(words, " ")); got != sum {
			t.Errorf("CountTokens(%.40q…) = %d, sum over its words %d", text, got, sum)
		}
	}
}

// TestEmbedBackground checks that background embedding gives the same
// vectors with one worker, and that its threads run at lowered priority
// while this goroutine's does not.
func TestEmbedBackground(t *testing.T) {
	// The priority threads start with, which need not be normal: the tests
	// may run under nice.
	runtime.LockOSThread()
	before, _ := threadPriority()
	runtime.UnlockOSThread()
	m := mustLoad(t)
	texts := []string{passage(0), passage(1), passage(2), "cheese"}
	want, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.EmbedBackground(context.Background(), texts, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("EmbedBackground(%.20q) differs from Embed", texts[i])
		}
	}
	if DefaultWorkers() != max(runtime.GOMAXPROCS(0)-1, 1) {
		t.Errorf("DefaultWorkers() = %d with GOMAXPROCS %d", DefaultWorkers(), runtime.GOMAXPROCS(0))
	}

	type prio struct {
		nice int
		ok   bool
	}
	ch := make(chan prio, 1)
	go func() {
		runtime.LockOSThread()
		lowerThreadPriority()
		n, ok := threadPriority()
		ch <- prio{n, ok}
	}()
	p := <-ch
	if !p.ok {
		t.Skipf("no per-thread priority on %s", runtime.GOOS)
	}
	if p.nice <= before && before < 19 {
		t.Errorf("embedding thread priority %d, want below the caller's %d", p.nice, before)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if n, _ := threadPriority(); n != before {
		t.Errorf("caller's thread priority %d after background embedding, want %d as before", n, before)
	}
}

// int8 runs only when asked for: fused with keywords its vectors answered
// one ariostea dev question fewer than the float ones (README, "Figures").
// The AVX2 int8 kernel likewise (README: what it lost on the dev sets).
func TestInt8OnlyWhenAsked(t *testing.T) {
	for _, env := range []string{"", "avx2", "neon", "anything"} {
		if _, _, int8, madd := pickKernel(env); int8 || madd {
			t.Errorf("%s=%q runs an int8 kernel", KernelEnv, env)
		}
	}
	if _, _, int8, madd := pickKernel("int8"); int8 != int8OK || madd {
		t.Errorf("%s=int8 runs int8: %v (AVX2 int8 %v), want %v (the processor's)", KernelEnv, int8, madd, int8OK)
	}
	if _, _, int8, madd := pickKernel(int8MaddName); int8 != int8MaddOK || madd != int8MaddOK {
		t.Errorf("%s=%s runs int8: %v, AVX2 int8 %v, want %v (the processor's)", KernelEnv, int8MaddName, int8, madd, int8MaddOK)
	}
}

// The packed weights unpack to a file that decodes; a packed file cut
// short, or with a plane of the wrong length, is an error, not a model.
func TestUnpackWeights(t *testing.T) {
	b, err := unpackWeights(weightsFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodeFile(b); err != nil {
		t.Fatalf("unpacked weights: %v", err)
	}
	if _, err := unpackWeights(weightsFile[:len(weightsFile)/2]); err == nil {
		t.Error("half a packed file unpacked")
	}
	bad := bytes.Clone(weightsFile)
	bad[4]++ // one byte longer than its planes
	if _, err := unpackWeights(bad); err == nil {
		t.Error("a file longer than its planes unpacked")
	}
}
