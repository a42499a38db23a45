package server

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/eval"
)

// evalRun scores the user's questions (eval.run) and maps the engine's
// reports to the wire: per channel the scores, per type span recall, per
// question its rank, and the eval report's pictures.
func (s *Server) evalRun(ctx context.Context, q proto.EvalRun) (proto.EvalResult, error) {
	mine := make([]eval.Mine, len(q.Questions))
	for i, x := range q.Questions {
		mine[i] = eval.Mine{Question: x.Question, Expected: x.Expected, Answer: x.Answer, Type: x.Type}
	}
	m, err := s.e.EvalMine(ctx, q.Set, mine, q.K)
	if err != nil {
		return proto.EvalResult{}, err
	}
	res := proto.EvalResult{Warnings: m.Warnings,
		Pictures: proto.EvalPictures{Recall: m.Pictures.Recall, Types: m.Pictures.Types, Ranks: m.Pictures.Ranks}}
	if len(m.Control) > 0 {
		res.Control = m.Control[0].Time.UTC().Format(time.RFC3339)
	}
	for _, r := range m.Runs {
		res.K = r.K
		c := proto.EvalChannel{Channel: r.Channel, SpanRecallAtK: r.SpanRecallAtK, SpanMRR: r.SpanMRR, NoteRecallAtK: r.NoteRecallAtK,
			RecallAt50: r.RecallAt.At50, Reachable: r.Reachable, MedianQueryMS: r.MedianQueryMS, Ranks: make([]proto.EvalRank, len(r.Ranks))}
		for _, t := range slices.Sorted(maps.Keys(r.ByType)) {
			c.ByType = append(c.ByType, proto.EvalType{Type: t, N: r.ByType[t].N, SpanRecallAtK: r.ByType[t].SpanRecallAtK})
		}
		for i, x := range r.Ranks {
			c.Ranks[i] = proto.EvalRank{Question: x.Query, Type: x.Type, Expected: x.Expected, Rank: x.Rank, NoteRank: x.NoteRank, Reachable: x.Reachable}
		}
		res.Channels = append(res.Channels, c)
	}
	return res, nil
}
