package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

var public = map[string][]string{
	"example.com":    {"93.184.216.34"},
	"a.example":      {"93.184.216.34"},
	"inside.example": {"192.168.1.10"},
}

func TestTLSKeepsNameAndHost(t *testing.T) {
	var gotHost, gotSNI string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost, gotSNI = r.Host, r.TLS.ServerName
		okHandler(w, r)
	}))
	defer srv.Close()
	f := &fakeNet{hosts: public, target: srv.Listener.Addr().String()}
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	// httptest's certificate is valid for example.com: verification passes
	// only if the TLS name is the URL's host, not the dialled IP.
	res, err := f.client(Options{TLSConfig: &tls.Config{RootCAs: roots}}).Get(context.Background(), "https://example.com/page")
	if err != nil {
		t.Fatal(err)
	}
	if gotHost != "example.com" || gotSNI != "example.com" {
		t.Errorf("Host %q, SNI %q; want example.com for both", gotHost, gotSNI)
	}
	if got, want := f.dials(), "93.184.216.34:443"; len(got) != 1 || got[0] != want {
		t.Errorf("dialled %v, want [%s]", got, want)
	}
	if res.FinalURL != "https://example.com/page" || res.ContentType != "text/html" || res.Charset != "utf-8" || res.StatusCode != 200 {
		t.Errorf("result %+v", res)
	}
	if string(res.Body) != "<html><title>ok</title></html>" {
		t.Errorf("body %q", res.Body)
	}
}

// redirector answers /r/N with a redirect to /r/N-1 until /r/0, which is
// the page; /to?u=X redirects to X.
func redirector(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/to" {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
		return
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
	if n > 0 {
		codes := []int{301, 302, 303, 307, 308}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), codes[n%len(codes)])
		return
	}
	okHandler(w, r)
}

func TestRedirects(t *testing.T) {
	tests := []struct {
		name, url string
		kind      error  // nil: success
		want      string // the error message, or FinalURL on success
		dials     int
	}{
		{"chain of 5", "http://a.example/r/5", nil, "http://a.example/r/0", 6},
		{"chain of 6", "http://a.example/r/6", ErrRedirects,
			"fetch http://a.example/r/6: redirect to http://a.example/r/1: too many redirects: more than 5", 6},
		{"to private literal", "http://a.example/to?u=http://10.0.0.5/admin", ErrRefused,
			"fetch http://a.example/to?u=http://10.0.0.5/admin: redirect to http://10.0.0.5/admin: refused: 10.0.0.5 is a private address", 1},
		{"to private name", "http://a.example/to?u=http://inside.example/", ErrRefused,
			"fetch http://a.example/to?u=http://inside.example/: redirect to http://inside.example/: refused: inside.example resolves to 192.168.1.10, a private address", 1},
		{"to metadata decimal", "http://a.example/to?u=http://2852039166/latest", ErrRefused,
			"fetch http://a.example/to?u=http://2852039166/latest: redirect to http://2852039166/latest: refused: 169.254.169.254 is the link-local cloud metadata address", 1},
		{"to mapped loopback", "http://a.example/to?u=http://[::ffff:127.0.0.1]:8080/", ErrRefused,
			"fetch http://a.example/to?u=http://[::ffff:127.0.0.1]:8080/: redirect to http://[::ffff:127.0.0.1]:8080/: refused: ::ffff:127.0.0.1 is a loopback address (IPv4-mapped 127.0.0.1)", 1},
		{"to file", "http://a.example/to?u=file:///etc/passwd", ErrRefused,
			`fetch http://a.example/to?u=file:///etc/passwd: redirect to file:///etc/passwd: refused: scheme "file" is not http or https`, 1},
		{"to credentials", "http://a.example/to?u=http://u:p@example.com/", ErrRefused,
			"refused: the URL carries a user name or password", 1},
		{"to public", "http://a.example/to?u=http://example.com/x", nil, "http://example.com/x", 2},
		{"relative", "http://a.example/to?u=/r/0", nil, "http://a.example/r/0", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := serve(t, redirector, public)
			res, err := f.client(Options{}).Get(context.Background(), tt.url)
			if tt.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
				if res.FinalURL != tt.want {
					t.Errorf("FinalURL = %s, want %s", res.FinalURL, tt.want)
				}
			} else {
				if !errors.Is(err, tt.kind) {
					t.Fatalf("err = %v, want %v", err, tt.kind)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %q\nwant %q", err, tt.want)
				}
			}
			if got := len(f.dials()); got != tt.dials {
				t.Errorf("dialled %d times (%v), want %d", got, f.dials(), tt.dials)
			}
		})
	}
}

func TestRedirectRecorded(t *testing.T) {
	f, _ := serve(t, redirector, public)
	res, err := f.client(Options{}).Get(context.Background(), "http://a.example/r/2#frag")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Redirects, " "), "http://a.example/r/1 http://a.example/r/0"; got != want {
		t.Errorf("Redirects = %s, want %s", got, want)
	}
	if res.URL != "http://a.example/r/2#frag" {
		t.Errorf("URL = %s", res.URL)
	}
}

func TestNoRedirects(t *testing.T) {
	f, _ := serve(t, redirector, public)
	_, err := f.client(Options{MaxRedirects: -1}).Get(context.Background(), "http://a.example/r/1")
	if !errors.Is(err, ErrRedirects) {
		t.Errorf("err = %v, want ErrRedirects", err)
	}
}

func TestSizeCap(t *testing.T) {
	body := strings.Repeat("a", 2000)
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"declared length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, body) // small writes get a Content-Length
		}},
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			for range 20 {
				fmt.Fprint(w, body[:100])
				w.(http.Flusher).Flush()
			}
		}},
		{"gzip bomb", func(w http.ResponseWriter, r *http.Request) {
			// Transparent decompression must not dodge the cap.
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, strings.Repeat("a", 1<<20)))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := serve(t, tt.handler, public)
			_, err := f.client(Options{MaxBytes: 1000}).Get(context.Background(), "http://a.example/")
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			if !strings.HasPrefix(err.Error(), "fetch http://a.example/: too large: ") {
				t.Errorf("err = %q", err)
			}
		})
	}
	// At the cap exactly is fine.
	f, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body[:1000])
	}, public)
	if res, err := f.client(Options{MaxBytes: 1000}).Get(context.Background(), "http://a.example/"); err != nil || len(res.Body) != 1000 {
		t.Errorf("body at the cap: %v", err)
	}
}

func TestContentTypes(t *testing.T) {
	pdf := "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
	tests := []struct {
		name, header, body string
		want               string // ContentType, or "" for refused
		sniffed            bool
	}{
		{"html", "text/html; charset=ISO-8859-1", "<p>x</p>", "text/html", false},
		{"xhtml", "application/xhtml+xml", "<html/>", "application/xhtml+xml", false},
		{"pdf", "application/pdf", pdf, "application/pdf", false},
		{"text", "text/plain", "hello", "text/plain", false},
		{"markdown", "text/markdown; charset=utf-8", "# hi", "text/markdown", false},
		{"upper case", "TEXT/HTML", "<p>x</p>", "text/html", false},
		{"missing, pdf body", "", pdf, "application/pdf", true},
		{"missing, html body", "", "<!DOCTYPE html><html><p>x", "text/html", true},
		{"octet-stream pdf", "application/octet-stream", pdf, "application/pdf", true},
		{"png", "image/png", "\x89PNG\r\n\x1a\n", "", false},
		{"json", "application/json", `{"a":1}`, "", false},
		{"javascript", "text/javascript", "alert(1)", "", false},
		{"svg", "image/svg+xml", "<svg/>", "", false},
		{"missing, binary body", "", "\x00\x01\x02\x03\xff\xfe", "", true},
		{"octet-stream zip", "application/octet-stream", "PK\x03\x04", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.header == "" {
					w.Header()["Content-Type"] = nil // stop net/http sniffing for us
				} else {
					w.Header().Set("Content-Type", tt.header)
				}
				fmt.Fprint(w, tt.body)
			}, public)
			res, err := f.client(Options{}).Get(context.Background(), "http://a.example/doc")
			if tt.want == "" {
				if !errors.Is(err, ErrContentType) {
					t.Fatalf("err = %v, want ErrContentType", err)
				}
				if !strings.Contains(err.Error(), "is not HTML, PDF or text") {
					t.Errorf("err = %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.ContentType != tt.want || res.Sniffed != tt.sniffed || string(res.Body) != tt.body {
				t.Errorf("got %s sniffed=%v body %q; want %s sniffed=%v", res.ContentType, res.Sniffed, res.Body, tt.want, tt.sniffed)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	f, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			w.WriteHeader(http.StatusFound) // no Location
			return
		}
		http.NotFound(w, r)
	}, public)
	c := f.client(Options{})
	_, err := c.Get(context.Background(), "http://a.example/gone")
	if !errors.Is(err, ErrStatus) || err.Error() != "fetch http://a.example/gone: bad status: 404 Not Found" {
		t.Errorf("404: err = %v", err)
	}
	if _, err := c.Get(context.Background(), "http://a.example/moved"); !errors.Is(err, ErrStatus) {
		t.Errorf("302 without Location: err = %v", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"slow headers", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}},
		{"slow body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			for {
				fmt.Fprint(w, "x")
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-release:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}},
		{"slow redirect chain", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(60 * time.Millisecond)
			redirector(w, r)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := serve(t, tt.handler, public)
			start := time.Now()
			_, err := f.client(Options{Timeout: 200 * time.Millisecond}).Get(context.Background(), "http://a.example/r/5")
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			if msg := err.Error(); !strings.Contains(msg, ": timed out: ") || !strings.HasSuffix(msg, "limit 200ms") {
				t.Errorf("err = %q", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestCallerCancel(t *testing.T) {
	f, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, public)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := f.client(Options{}).Get(ctx, "http://a.example/")
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestResolveFailure(t *testing.T) {
	f := &fakeNet{hosts: public}
	_, err := f.client(Options{}).Get(context.Background(), "http://nowhere.example/")
	var e *Error
	if !errors.As(err, &e) || e.Kind != nil || !strings.Contains(err.Error(), "resolve nowhere.example") {
		t.Errorf("err = %v", err)
	}
	if len(f.dials()) != 0 {
		t.Errorf("dialled %v", f.dials())
	}
}
