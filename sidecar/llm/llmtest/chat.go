package llmtest

import (
	"encoding/json"
	"net/http"
	"time"
)

// openAIChat answers /v1/chat/completions, as one JSON object or as SSE
// "data:" chunks ending in "data: [DONE]", with a usage chunk when the
// request asked for stream_options.include_usage.
func (s *Server) openAIChat(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	in, out := rep.usage(req)
	usage := map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	created := time.Now().Unix()
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": rep.full()}}},
			"usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for i, c := range rep.chunks() {
		if i > 0 && !sleep(r, rep.ChunkDelay) {
			return
		}
		sse(w, "", chunk(map[string]any{"content": c}, nil))
	}
	sse(w, "", chunk(map[string]any{}, "stop"))
	if opts, ok := req.JSON["stream_options"].(map[string]any); ok && opts["include_usage"] == true {
		sse(w, "", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "choices": []any{}, "usage": usage})
	}
	sse(w, "", "[DONE]")
}

// ollamaChat answers /api/chat, streaming NDJSON unless "stream": false; the
// last line has "done": true and the token counts.
func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	in, out := rep.usage(req)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	final := map[string]any{"model": req.Model, "created_at": now, "done": true, "done_reason": "stop",
		"message":           map[string]any{"role": "assistant", "content": ""},
		"prompt_eval_count": in, "eval_count": out, "total_duration": 1000}
	if !req.Stream {
		final["message"] = map[string]any{"role": "assistant", "content": rep.full()}
		writeJSON(w, final)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for i, c := range rep.chunks() {
		if i > 0 && !sleep(r, rep.ChunkDelay) {
			return
		}
		_ = enc.Encode(map[string]any{"model": req.Model, "created_at": now, "done": false,
			"message": map[string]any{"role": "assistant", "content": c}})
		flush()
	}
	_ = enc.Encode(final)
	flush()
}

// anthropic answers /v1/messages, as one message object or as the SSE event
// sequence message_start, content_block_start, ping, content_block_delta…,
// content_block_stop, message_delta, message_stop.
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	in, out := rep.usage(req)
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []map[string]any{{"type": "text", "text": rep.full()}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": in, "output_tokens": out},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "usage": map[string]int{"input_tokens": in, "output_tokens": 1}}})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	sse(w, "ping", map[string]any{"type": "ping"})
	for i, c := range rep.chunks() {
		if i > 0 && !sleep(r, rep.ChunkDelay) {
			return
		}
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": c}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": out}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
