package markdown

// codecTok is cl100k as the codec alone splits it, as every count was
// made before the hand-written split (cl100k.go): what passages are held
// to.
type codecTok struct{}

func (codecTok) Offsets(s string) []int { return codecOffsets(s) }

// CodecChunker is a Chunker whose every count is the codec's own.
func CodecChunker(p Params) *Chunker { return &Chunker{P: p, Tok: codecTok{}} }

// CorpusDirs are the bench corpora and fixtures notes are checked on.
var CorpusDirs = corpusDirs
