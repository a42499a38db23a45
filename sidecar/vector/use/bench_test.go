package use

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// sentences are note-like English, recombined into ~100-word passages.
var sentences = []string{
	"The rind of a washed cheese needs steady humidity, around eighty-five percent, or it cracks and the paste dries from the outside in.",
	"Wrap the wedge in wax paper and then loosely in foil; plastic traps moisture against the cut face and invites mould.",
	"Our cave sits at twelve degrees, and we turn the wheels twice a week for the first month.",
	"Brine at eighteen percent salt for about three hours per kilogram, then let the surface dry before it goes on the shelf.",
	"Meeting notes: the supplier can deliver raw milk on Tuesdays and Fridays, but the price goes up in winter.",
	"Remember to label each batch with the date, the milk source, the rennet dose and the starting pH.",
	"When the curd breaks cleanly over a finger, cut it into hazelnut-sized pieces and stir gently for twenty minutes.",
	"A hard Italian cheese such as Parmigiano Reggiano ages for at least twelve months, often twenty-four or more.",
	"If the fridge is too cold and dry, keep the cheese in the vegetable drawer with a damp cloth nearby.",
	"The recipe in the old notebook calls for calcium chloride when using pasteurised milk from the shop.",
}

// passage returns a ~100-word passage built from the sentences.
func passage(i int) string {
	var b strings.Builder
	words := 0
	for j := i; words < 100; j++ {
		s := sentences[j%len(sentences)]
		b.WriteString(s)
		b.WriteByte(' ')
		words += len(strings.Fields(s))
	}
	return strings.TrimSpace(b.String())
}

// BenchmarkEmbedChunks measures indexing throughput: batches of ~100-word
// passages (each clipped to the model's 128 pieces), on GOMAXPROCS cores,
// with each kernel this machine runs (the SIMD one first), so that their
// ratio comes from one run on a shared machine.
//
// The line simdName+"-dense" runs the SIMD kernel with the feed-forward
// layers' second products dense, as they ran before the sparse product.
func BenchmarkEmbedChunks(b *testing.B) {
	for _, k := range kernels() {
		b.Run(k, func(b *testing.B) { benchEmbedChunks(b, loadKernel(b, k)) })
		if k == simdName && sparseHalfOK {
			b.Run(k+"-dense", func(b *testing.B) {
				sparseHalf = false
				defer func() { sparseHalf = true }()
				benchEmbedChunks(b, loadKernel(b, k))
			})
		}
	}
}

func benchEmbedChunks(b *testing.B, m *Model) {
	const batch = 64
	texts := make([]string, batch)
	tokens := 0
	for i := range texts {
		texts[i] = passage(i)
		tokens += min(m.CountTokens(texts[i]), m.MaxTokens())
	}
	ctx := context.Background()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "chunks/s")
	// On a shared machine wall time undercounts; chunks per CPU-second times
	// the core count is what the cores would do undisturbed.
	b.ReportMetric(float64(batch*b.N)/(cpuTime()-cpu0).Seconds(), "chunks/cpu-s")
	b.ReportMetric(float64(tokens)/batch, "tokens/chunk")
}

// BenchmarkEmbedQuery measures the latency of embedding one search query,
// with each kernel this machine runs.
func BenchmarkEmbedQuery(b *testing.B) {
	for _, k := range kernels() {
		b.Run(k, func(b *testing.B) { benchEmbedQuery(b, loadKernel(b, k)) })
	}
}

func benchEmbedQuery(b *testing.B, m *Model) {
	ctx := context.Background()
	q := []string{"how do I keep cheese from drying out in the fridge"}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/query")
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/query")
}

// BenchmarkLoad measures the first-use cost of decoding the embedded weights.
func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := decode(weightsFile); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleModel_Embed() {
	m, err := Load()
	if err != nil {
		panic(err)
	}
	vecs, err := m.Embed(context.Background(), []string{"How do I keep cheese from drying out?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(vecs), len(vecs[0]), m.Name())
	// Output: 1 512 use-lite@0.2.0
}

// BenchmarkCountTokens measures tokenising a ~100-word passage, which
// chunkers call repeatedly to size windows.
func BenchmarkCountTokens(b *testing.B) {
	m := mustLoad(b)
	text := passage(0)
	b.SetBytes(int64(len(text)))
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		m.CountTokens(text)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}
