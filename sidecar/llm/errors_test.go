package llm

import "testing"

func TestErrorMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":"model \"x\" not found, try pulling it first"}`, `model "x" not found, try pulling it first`},                          // Ollama
		{`{"error":{"message":"The model ` + "`x`" + ` does not exist","type":"invalid_request_error"}}`, "The model `x` does not exist"}, // OpenAI
		{`{"type":"error","error":{"type":"not_found_error","message":"model: x"}}`, "model: x"},                                          // Anthropic
		{`{"object":"error","message":"The model x does not exist.","type":"NotFoundError","code":404}`, "The model x does not exist."},   // vLLM
		{"<html>Bad Gateway</html>", "<html>Bad Gateway</html>"},
		{"", "no message"},
	}
	for _, tt := range tests {
		if got := errorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("errorMessage(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
