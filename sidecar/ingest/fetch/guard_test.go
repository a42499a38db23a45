package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeNet stands in for DNS and the network: names resolve to the
// addresses in hosts, and every dial, whatever checked address it is for,
// connects to the local test listener at target. The guard sees only the
// public-looking addresses; nothing about it is loosened.
type fakeNet struct {
	hosts  map[string][]string
	target string // host:port of the test server; "" means dials fail

	mu     sync.Mutex
	dialed []string
}

func (f *fakeNet) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	addrs, ok := f.hosts[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []net.IPAddr
	for _, a := range addrs {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

func (f *fakeNet) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	f.mu.Lock()
	f.dialed = append(f.dialed, addr)
	f.mu.Unlock()
	if f.target == "" {
		return nil, fmt.Errorf("test network: no route to %s", addr)
	}
	return (&net.Dialer{}).DialContext(ctx, network, f.target)
}

func (f *fakeNet) dials() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.dialed...)
}

func (f *fakeNet) client(opts Options) *Client {
	opts.Dialer, opts.Resolver = f.Dial, f
	return New(opts)
}

// serve starts a test server and a fakeNet whose dials reach it.
func serve(t testing.TB, h http.HandlerFunc, hosts map[string][]string) (*fakeNet, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &fakeNet{hosts: hosts, target: srv.Listener.Addr().String()}, srv
}

func okHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<html><title>ok</title></html>")
}

// TestRefusedAddresses names every address form the guard refuses. The
// fake network would connect anything to a live server, so a case that
// slipped through would dial and succeed.
func TestRefusedAddresses(t *testing.T) {
	hosts := map[string][]string{
		"private.test":       {"10.0.0.5"},
		"metadata.test":      {"169.254.169.254"},
		"mixed.test":         {"93.184.216.34", "127.0.0.1"},
		"mapped.test":        {"::ffff:127.0.0.1"},
		"ula.test":           {"fd00::1"},
		"cgnat.test":         {"100.64.1.1"},
		"loop6.test":         {"2606:2800:220:1::1", "::1"},
		"127.0.0.1.nip.test": {"127.0.0.1"},
	}
	tests := []struct {
		name, url string
		kind      error
		why       string // in the error message
	}{
		{"scheme ftp", "ftp://example.test/x", ErrRefused, `scheme "ftp"`},
		{"scheme file", "file:///etc/passwd", ErrRefused, `scheme "file"`},
		{"scheme gopher", "gopher://example.test/", ErrRefused, `scheme "gopher"`},
		{"scheme javascript", "javascript:alert(1)", ErrRefused, "scheme"},
		{"user info", "http://user:pw@example.test/", ErrRefused, "user name or password"},
		{"user info before private host", "http://example.test@10.0.0.1/", ErrRefused, "user name or password"},

		{"loopback", "http://127.0.0.1/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"loopback range", "http://127.255.255.254:8080/", ErrRefused, "is a loopback address"},
		{"loopback v6", "http://[::1]/", ErrRefused, "::1 is a loopback address"},
		{"localhost", "http://localhost/", ErrRefused, "loopback name"},
		{"localhost subdomain", "http://app.localhost./", ErrRefused, "loopback name"},
		{"decimal", "http://2130706433/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"hex", "http://0x7f000001/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"octal", "http://017700000001/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"short", "http://127.1/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"hex parts", "http://0x7f.0x0.0x0.0x1/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"octal parts", "http://0177.0.0.01/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"hex short", "http://0x7f.1/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"leading zeros", "http://127.000.000.001/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"trailing dot", "http://127.0.0.1./", ErrRefused, "127.0.0.1 is a loopback address"},
		{"upper hex", "http://0X7F000001/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"full-width", "http://１２７。０。０。１/", ErrRefused, "127.0.0.1 is a loopback address"},
		{"percent-encoded host", "http://%31%32%37.0.0.1/", ErrURL, "invalid URL escape"},
		{"decimal private", "http://167772165/", ErrRefused, "10.0.0.5 is a private address"},

		{"private 10", "http://10.0.0.5/", ErrRefused, "10.0.0.5 is a private address"},
		{"private 172.16", "http://172.16.0.1/", ErrRefused, "is a private address"},
		{"private 172.31", "http://172.31.255.255/", ErrRefused, "is a private address"},
		{"private 192.168", "http://192.168.1.1/", ErrRefused, "is a private address"},
		{"link-local", "http://169.254.1.1/", ErrRefused, "is a link-local address"},
		{"metadata", "http://169.254.169.254/latest/meta-data/", ErrRefused, "169.254.169.254 is the link-local cloud metadata address"},
		{"metadata decimal", "http://2852039166/", ErrRefused, "169.254.169.254 is the link-local cloud metadata address"},
		{"link-local v6", "http://[fe80::1]/", ErrRefused, "is a link-local address"},
		{"link-local v6 zone", "http://[fe80::1%25eth0]/", ErrURL, "zone"},
		{"cgnat", "http://100.64.0.1/", ErrRefused, "is a shared (CGNAT) address"},
		{"cgnat top", "http://100.127.255.255/", ErrRefused, "is a shared (CGNAT) address"},
		{"multicast", "http://224.0.0.1/", ErrRefused, "is a multicast address"},
		{"multicast ssdp", "http://239.255.255.250/", ErrRefused, "is a multicast address"},
		{"multicast v6", "http://[ff02::1]/", ErrRefused, "is a multicast address"},
		{"unspecified", "http://0.0.0.0/", ErrRefused, "is the unspecified address"},
		{"unspecified zero", "http://0/", ErrRefused, "is the unspecified address"},
		{"unspecified v6", "http://[::]/", ErrRefused, "is the unspecified address"},
		{"broadcast", "http://255.255.255.255/", ErrRefused, "is the broadcast address"},
		{"this network", "http://0.1.2.3/", ErrRefused, "this network"},
		{"reserved", "http://240.0.0.1/", ErrRefused, "is a reserved address"},
		{"benchmarking", "http://198.18.0.1/", ErrRefused, "is a benchmarking address"},
		{"ietf protocol", "http://192.0.0.170/", ErrRefused, "IETF protocol"},
		{"documentation 1", "http://192.0.2.1/", ErrRefused, "is a documentation address"},
		{"documentation 2", "http://198.51.100.1/", ErrRefused, "is a documentation address"},
		{"documentation 3", "http://203.0.113.1/", ErrRefused, "is a documentation address"},
		{"documentation v6", "http://[2001:db8::1]/", ErrRefused, "is a documentation address"},
		{"unique-local", "http://[fc00::1]/", ErrRefused, "is a unique-local address"},
		{"unique-local fd", "http://[fd12:3456::1]/", ErrRefused, "is a unique-local address"},
		{"site-local", "http://[fec0::1]/", ErrRefused, "is a site-local address"},
		{"mapped loopback", "http://[::ffff:127.0.0.1]/", ErrRefused, "is a loopback address (IPv4-mapped 127.0.0.1)"},
		{"mapped loopback hex", "http://[::ffff:7f00:1]/", ErrRefused, "IPv4-mapped 127.0.0.1"},
		{"mapped private", "http://[::ffff:10.0.0.5]/", ErrRefused, "is a private address (IPv4-mapped 10.0.0.5)"},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/", ErrRefused, "IPv4-mapped 169.254.169.254"},
		{"compatible", "http://[::127.0.0.1]/", ErrRefused, "IPv4-compatible"},
		{"compatible private", "http://[::10.0.0.5]/", ErrRefused, "IPv4-compatible"},
		{"translated", "http://[::ffff:0:10.0.0.5]/", ErrRefused, "IPv4-translated 10.0.0.5"},
		{"nat64 loopback", "http://[64:ff9b::127.0.0.1]/", ErrRefused, "NAT64 127.0.0.1"},
		{"nat64 metadata", "http://[64:ff9b::a9fe:a9fe]/", ErrRefused, "NAT64 169.254.169.254"},
		{"nat64 local-use", "http://[64:ff9b:1::1]/", ErrRefused, "local-use NAT64"},
		{"6to4 loopback", "http://[2002:7f00:1::]/", ErrRefused, "6to4 127.0.0.1"},
		{"6to4 private", "http://[2002:c0a8:101::1]/", ErrRefused, "6to4 192.168.1.1"},
		{"teredo", "http://[2001::1]/", ErrRefused, "Teredo"},
		{"discard-only", "http://[100::1]/", ErrRefused, "discard-only"},
		{"not global unicast", "http://[4000::1]/", ErrRefused, "not a global unicast address"},

		{"dns private", "http://private.test/", ErrRefused, "private.test resolves to 10.0.0.5, a private address"},
		{"dns metadata", "http://metadata.test/", ErrRefused, "169.254.169.254"},
		{"dns one of two", "http://mixed.test/", ErrRefused, "mixed.test resolves to 127.0.0.1, a loopback address"},
		{"dns mapped", "http://mapped.test/", ErrRefused, "mapped.test resolves to 127.0.0.1, a loopback address"},
		{"dns ula", "http://ula.test/", ErrRefused, "unique-local"},
		{"dns cgnat", "http://cgnat.test/", ErrRefused, "CGNAT"},
		{"dns v6 loopback second", "http://loop6.test/", ErrRefused, "::1, a loopback address"},
		{"dns name like an address", "http://127.0.0.1.nip.test/", ErrRefused, "loopback"},
		{"single label", "http://router/", ErrRefused, "router is a single-label name"},
		{"mdns", "http://printer.local/", ErrRefused, "printer.local is under .local"},
		{"internal", "http://metadata.google.internal/computeMetadata/v1/", ErrRefused, "under .internal"},
		{"home.arpa", "http://nas.home.arpa/", ErrRefused, "under .home.arpa"},

		{"bad ipv4 part", "http://1.2.3.999999999/", ErrURL, "invalid IPv4"},
		{"bad ipv4 first", "http://256.1.1.1/", ErrURL, "invalid IPv4"},
		{"bad octal", "http://08.1.1.1/", ErrURL, "invalid IPv4"},
		{"five parts", "http://1.2.3.4.5/", ErrURL, "invalid IPv4"},
		{"huge hex", "http://0xffffffffffffffffffffffff/", ErrURL, "invalid IPv4"},
		{"empty label", "http://a..example/", ErrURL, "invalid host"},
		{"no host", "http:///path", ErrURL, "no host"},
		{"port zero", "http://example.test:0/", ErrURL, "port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := serve(t, okHandler, hosts)
			_, err := f.client(Options{}).Get(context.Background(), tt.url)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("Get(%s) err = %v, want %v", tt.url, err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("Get(%s) err = %q, want it to say %q", tt.url, err, tt.why)
			}
			var e *Error
			if !errors.As(err, &e) || e.URL != tt.url {
				t.Errorf("error %#v does not name the URL %s", err, tt.url)
			}
			if d := f.dials(); len(d) > 0 {
				t.Errorf("dialled %v", d)
			}
		})
	}
}

// TestAllowedAddresses: public addresses in every spelling are dialled, and
// dialled as the checked IP, never the name.
func TestAllowedAddresses(t *testing.T) {
	hosts := map[string][]string{
		"example.test": {"93.184.216.34"},
		"dual.test":    {"2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"},
		"mapped.test":  {"::ffff:93.184.216.34"},
	}
	tests := []struct{ name, url, dialed string }{
		{"ipv4", "http://93.184.216.34/", "93.184.216.34:80"},
		{"ipv4 decimal", "http://1572395042/", "93.184.216.34:80"},
		{"ipv6", "http://[2606:2800:220:1:248:1893:25c8:1946]:8080/", "[2606:2800:220:1:248:1893:25c8:1946]:8080"},
		{"mapped public", "http://[::ffff:93.184.216.34]/", "93.184.216.34:80"},
		{"nat64 public", "http://[64:ff9b::5db8:d822]/", "[64:ff9b::5db8:d822]:80"},
		{"6to4 public", "http://[2002:5db8:d822::1]/", "[2002:5db8:d822::1]:80"},
		{"name", "http://example.test/a?b=c#frag", "93.184.216.34:80"},
		{"name upper case with dot", "HTTP://EXAMPLE.TEST./", "93.184.216.34:80"},
		{"name ipv6 first", "http://dual.test:81/", "[2606:2800:220:1:248:1893:25c8:1946]:81"},
		{"dns mapped public", "http://mapped.test/", "93.184.216.34:80"},
		{"cgnat edge", "http://100.128.0.1/", "100.128.0.1:80"},
		{"172.32 is public", "http://172.32.0.1/", "172.32.0.1:80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := serve(t, okHandler, hosts)
			res, err := f.client(Options{}).Get(context.Background(), tt.url)
			if err != nil {
				t.Fatalf("Get(%s): %v", tt.url, err)
			}
			if got := f.dials(); len(got) != 1 || got[0] != tt.dialed {
				t.Errorf("dialled %v, want [%s]", got, tt.dialed)
			}
			if want := netip.MustParseAddrPort(tt.dialed).Addr(); res.Addr != want {
				t.Errorf("Result.Addr = %s, want %s", res.Addr, want)
			}
		})
	}
}

// TestDialFallsBack: when the first checked address does not answer, the
// next one is tried; still no second lookup.
func TestDialFallsBack(t *testing.T) {
	f, _ := serve(t, okHandler, map[string][]string{"two.test": {"93.184.216.34", "93.184.216.35"}})
	target := f.target
	c := New(Options{Resolver: f, Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
		f.mu.Lock()
		f.dialed = append(f.dialed, addr)
		f.mu.Unlock()
		if addr == "93.184.216.34:80" {
			return nil, errors.New("connection refused")
		}
		return (&net.Dialer{}).DialContext(ctx, network, target)
	}})
	res, err := c.Get(context.Background(), "http://two.test/")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(f.dials(), " "), "93.184.216.34:80 93.184.216.35:80"; got != want {
		t.Errorf("dialled %s, want %s", got, want)
	}
	if res.Addr != netip.MustParseAddr("93.184.216.35") {
		t.Errorf("Addr = %s", res.Addr)
	}
}

func TestCheck(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.1.2.3", "::1", "fe80::1", "::ffff:192.168.0.1", "fd00::", "64:ff9b::10.0.0.1", "2002:a00:1::"} {
		if err := Check(netip.MustParseAddr(s)); !errors.Is(err, ErrRefused) {
			t.Errorf("Check(%s) = %v, want ErrRefused", s, err)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "2a00:1450:4001::1", "::ffff:8.8.8.8"} {
		if err := Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("Check(%s) = %v, want nil", s, err)
		}
	}
	if err := Check(netip.Addr{}); err == nil {
		t.Error("Check(zero Addr) = nil")
	}
}

func TestParseIPv4(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means invalid
	}{
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"10.1.256", "10.1.1.0"},
		{"0x7f.1", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
		{"256.0.0.1", ""},
		{"1.2.3.4.5", ""},
		{"09", ""},
		{"0x1g", ""},
		{"1..2", ""},
		{"+1", ""},
	}
	for _, tt := range tests {
		got, ok := parseIPv4(tt.in)
		switch {
		case tt.want == "" && ok:
			t.Errorf("parseIPv4(%q) = %s, want invalid", tt.in, got)
		case tt.want != "" && (!ok || got.String() != tt.want):
			t.Errorf("parseIPv4(%q) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestLocalHost(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://127.0.0.1/x": true, "http://2130706433/": true, "http://0x7f.1/": true, "http://[::1]:8/": true,
		"http://169.254.169.254/latest": true, "https://10.1.2.3/": true, "http://printer.localhost/": true,
		"http://LOCALHOST./": true, "http://[::ffff:192.168.0.1]/": true,
		"http://router/": true, "http://printer.local/": true, "http://nas.lan/": true, "http://metadata.google.internal/": true,
		"http://nas.home.arpa./": true, "http://a.example.localdomain/": true,
		"https://example.com/": false, "http://93.184.216.34/": false, "/relative.png": false, "mailto:a@b.example": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := LocalHost(u) != ""; got != want {
			t.Errorf("LocalHost(%s) refused %v, want %v", raw, got, want)
		}
	}
}

// TestDefaultDialerRefusesPrivate: the default dialer checks the address
// the socket connects to, so even an address that skipped the guard (a
// name handed to the dialer, resolved again) cannot reach a private one.
// The listener is real and on loopback: without the check the dial would
// connect.
func TestDefaultDialerRefusesPrivate(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	dial := New(Options{}).opts.Dialer
	for _, addr := range []string{l.Addr().String(), "localhost:" + fmt.Sprint(l.Addr().(*net.TCPAddr).Port)} {
		conn, err := dial(context.Background(), "tcp", addr)
		if err == nil {
			conn.Close()
			t.Errorf("the default dialer connected to %s", addr)
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("dial %s: %v, want %v", addr, err, ErrRefused)
		}
	}
	select {
	case <-accepted:
		t.Error("the loopback listener accepted a connection")
	default:
	}
}

// rebinding answers a public address for a name's first lookup and a
// loopback one after: DNS rebinding.
type rebinding struct {
	mu      sync.Mutex
	lookups int
}

func (r *rebinding) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if r.lookups == 1 {
		return []net.IPAddr{{IP: net.ParseIP("93.184.216.34")}}, nil
	}
	return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}}, nil
}

// TestDNSRebinding: a name is resolved once per request, and the
// connection goes to exactly the address that was checked, never to the
// name (which the dialer would resolve again). A redirect to the same name
// is resolved and checked again, and refused when it now points inside.
func TestDNSRebinding(t *testing.T) {
	f, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/next", http.StatusFound)
			return
		}
		okHandler(w, r)
	}, nil)
	r := &rebinding{}
	c := New(Options{Resolver: r, Dialer: f.Dial})
	_, err := c.Get(context.Background(), "http://rebind.test/")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "rebind.test resolves to 127.0.0.1") {
		t.Errorf("redirect to a rebound name: %v, want refused naming 127.0.0.1", err)
	}
	if got := f.dials(); len(got) != 1 || got[0] != "93.184.216.34:80" {
		t.Errorf("dialled %v, want only the checked 93.184.216.34:80", got)
	}
	if r.lookups != 2 {
		t.Errorf("%d lookups, want one per request (2)", r.lookups)
	}
}
