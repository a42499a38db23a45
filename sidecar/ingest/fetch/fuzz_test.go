package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"
)

// refusedRef is an independent statement of the ranges the brief requires
// refused, written as plain prefixes (the embedded IPv4 forms spelled out),
// so the fuzz target does not trust reason() to check itself.
var refusedRef = func() []netip.Prefix {
	v4 := []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.2.0/24", "192.168.0.0/16", "198.51.100.0/24",
		"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
	}
	var out []netip.Prefix
	for _, s := range v4 {
		p := netip.MustParsePrefix(s)
		b := p.Addr().As4()
		out = append(out, p)
		for _, embed := range []struct {
			head    [16]byte
			at, at6 int // where the IPv4 bytes go, and prefix bits before them
		}{
			{[16]byte{10: 0xff, 11: 0xff}, 12, 96},                 // ::ffff:a.b.c.d
			{[16]byte{8: 0xff, 9: 0xff}, 12, 96},                   // ::ffff:0:a.b.c.d
			{[16]byte{0: 0x00, 1: 0x64, 2: 0xff, 3: 0x9b}, 12, 96}, // 64:ff9b::a.b.c.d
			{[16]byte{0: 0x20, 1: 0x02}, 2, 16},                    // 2002:aabb:ccdd::
		} {
			a := embed.head
			copy(a[embed.at:], b[:])
			out = append(out, netip.PrefixFrom(netip.AddrFrom16(a), embed.at6+p.Bits()))
		}
	}
	for _, s := range []string{"::/128", "::1/128", "::/96", "fe80::/10", "fc00::/7", "ff00::/8", "2001:db8::/32", "fec0::/10"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

func refusedByRef(a netip.Addr) bool {
	a = a.WithZone("")
	for _, p := range refusedRef {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// FuzzGet feeds arbitrary URLs, with every name resolving to an arbitrary
// address, through Get. It must not panic, and it must never dial an
// address in a refused range, however the host is spelled.
//
//	go test -run='^$' -fuzz=FuzzGet -fuzztime=60s ./sidecar/ingest/fetch/
func FuzzGet(f *testing.F) {
	seeds := []string{
		"http://2130706433/", "http://0x7f000001/", "http://017700000001/", "http://127.1/",
		"http://0x7f.1/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/",
		"http://[2002:7f00:1::]/", "http://example.test/", "https://EXAMPLE.test.:8443/a?b#c",
		"http://１２７。０。０。１/", "http://[fe80::1%25eth0]/", "http://u:p@10.0.0.1/",
		"http://0/", "http://93.184.216.34/", "http://[::1]:80/", "http://localhost./",
	}
	ips := [][]byte{
		{127, 0, 0, 1}, {10, 0, 0, 5}, {93, 184, 216, 34}, {169, 254, 169, 254},
		netip.MustParseAddr("::ffff:192.168.0.1").AsSlice(), netip.MustParseAddr("fd00::1").AsSlice(),
		netip.MustParseAddr("2606:2800:220:1::1").AsSlice(), {},
	}
	for i, s := range seeds {
		f.Add(s, ips[i%len(ips)])
	}
	// One address inside every refused range, by name and as a literal, so
	// plain `go test` (which runs the seeds) already covers each range.
	for _, p := range refusedRef {
		a := p.Addr().Next()
		if !p.Contains(a) {
			a = p.Addr()
		}
		f.Add("http://name.test/", a.AsSlice())
		f.Add("http://"+netip.AddrPortFrom(a, 80).String()+"/", []byte{})
	}
	f.Fuzz(func(t *testing.T, raw string, ip []byte) {
		answer, ok := netip.AddrFromSlice(ip)
		if ok && refusedByRef(answer) && Check(answer) == nil {
			t.Fatalf("Check(%s) = nil for a refused address", answer)
		}
		resolver := resolverFunc(func(_ context.Context, host string) ([]net.IPAddr, error) {
			if !ok {
				return nil, errors.New("no such host")
			}
			return []net.IPAddr{{IP: net.IP(answer.AsSlice())}}, nil
		})
		dialer := func(_ context.Context, _, addr string) (net.Conn, error) {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				t.Fatalf("Get(%q) dialled %q, not an ip:port", raw, addr)
			}
			if refusedByRef(ap.Addr()) {
				t.Fatalf("Get(%q) with answer %s dialled refused address %s", raw, answer, addr)
			}
			return nil, errors.New("fuzz: no network")
		}
		c := New(Options{Dialer: dialer, Resolver: resolver, Timeout: time.Second})
		if _, err := c.Get(context.Background(), raw); err == nil {
			t.Fatalf("Get(%q) succeeded with no network", raw)
		}
	})
}

type resolverFunc func(ctx context.Context, host string) ([]net.IPAddr, error)

func (f resolverFunc) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	return f(ctx, host)
}
