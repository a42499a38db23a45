package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSearchKnowledge measures one search_knowledge call through the
// SDK's client and server over the in-memory transport, on the small test
// vault: the protocol's cost over a search, in process and through a
// sidecar.
func BenchmarkSearchKnowledge(b *testing.B) {
	for _, bk := range []struct {
		name string
		new  func(testing.TB) (Backend, string)
	}{{"local", localBackend}, {"sidecar", remoteBackend}} {
		b.Run(bk.name, func(b *testing.B) {
			be, _ := bk.new(b)
			cs := connectMemory(b, be)
			ctx := context.Background()
			for _, args := range []struct {
				name string
				args map[string]any
			}{
				{"plain", map[string]any{"query": "starter flour water", "k": 3}},
				{"tag", map[string]any{"query": "starter flour water", "k": 3, "tag": "recipe"}},
			} {
				b.Run(args.name, func(b *testing.B) {
					for b.Loop() {
						res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_knowledge", Arguments: args.args})
						if err != nil || res.IsError {
							b.Fatal(err, res)
						}
					}
				})
			}
		})
	}
}
