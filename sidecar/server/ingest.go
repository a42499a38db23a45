package server

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/worker"
	"github.com/quire-app/quire/sidecar/search"
)

// newWorker makes the ingest worker for opts.Queue: the compiler searches
// this server's index for related pages, checks links against its catalog,
// reads with the model in force, and every event it raises is broadcast.
func (s *Server) newWorker() *worker.Worker {
	cfg := s.config()
	return worker.New(worker.Options{
		Queue:      s.opts.Queue,
		Fetch:      s.opts.Fetch,
		Vault:      s.vault,
		Folder:     cfg.Folder,
		FolderFunc: func() string { return s.config().Folder },
		MaxCalls:   cfg.Ingest.MaxCalls,
		Compile:    s.compileOptions,
		Events:     s.broadcast,
		Log:        s.log,
		Inbox:      s.opts.InboxPoll,
	})
}

// compileOptions is what the compiler needs from the rest of the sidecar,
// as of now: the model in force (nil when none), search over the latest
// snapshot, and its catalog for link targets.
func (s *Server) compileOptions() compile.Options {
	snap := s.snap.Load()
	opt := compile.Options{
		Related:  worker.Related(snap.searcher, search.Default(snap.dense.Embedded), s.config().Folder),
		Exists:   worker.Exists(s.vault, snap.entries),
		MaxCalls: s.config().Ingest.MaxCalls,
		Private:  s.config().Private,
	}
	if m := s.answerModel(); m != nil {
		opt.Model = m
	}
	return opt
}

// Ingest works the ingest queue until ctx ends: one source at a time, and
// the files dropped into <Folder>/Inbox/. It returns at once when the
// server has no queue. The index must stay open until it returns; a note
// being written when ctx ends is finished first.
func (s *Server) Ingest(ctx context.Context) error {
	if s.ingest == nil {
		return nil
	}
	return s.ingest.Run(ctx)
}

// ingestAdd answers ingest.add.
func (s *Server) ingestAdd(q proto.IngestAdd) (proto.IngestResult, error) {
	if s.ingest == nil {
		return proto.IngestResult{}, &proto.Error{Code: proto.CodeNotReady, Message: "this sidecar has no ingest queue"}
	}
	src := strings.TrimSpace(q.Source)
	it, pos, err := s.ingest.Add(src, q.Resummarise)
	var dup *ingest.DuplicateError
	switch {
	case err == nil:
		return proto.IngestResult{ID: it.ID, Source: it.Source, Position: pos}, nil
	case errors.As(err, &dup):
		return proto.IngestResult{}, &proto.Error{Code: proto.CodeDuplicate, Message: src + ": " + worker.DuplicateMessage(dup)}
	case errors.Is(err, worker.ErrSource), errors.Is(err, ingest.ErrSource):
		return proto.IngestResult{}, invalid("ingest.add: %v", err)
	case errors.Is(err, worker.ErrNoModel):
		return proto.IngestResult{}, &proto.Error{Code: proto.CodeModelUnavailable, Message: "ingest.add: no model is configured to summarise " + src}
	}
	return proto.IngestResult{}, err
}

// queueList answers queue.list.
func (s *Server) queueList() (proto.QueueResult, error) {
	if s.ingest == nil {
		return proto.QueueResult{Items: []proto.QueueItem{}}, nil
	}
	items, err := s.ingest.Queue().List()
	if err != nil {
		return proto.QueueResult{}, err
	}
	res := proto.QueueResult{Items: make([]proto.QueueItem, len(items))}
	for i, it := range items {
		res.Items[i] = toQueueItem(it)
	}
	return res, nil
}

func toQueueItem(it ingest.Item) proto.QueueItem {
	q := proto.QueueItem{ID: it.ID, Source: it.Source, State: string(it.State), Attempts: it.Attempts,
		Error: it.LastError, Added: it.Added.UTC().Format(time.RFC3339)}
	if it.State == ingest.StateDone {
		q.Note = it.Result
	}
	return q
}
