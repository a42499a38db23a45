//go:build quiretest

package main

// The test-only DNS override, --test-hosts of serve and ingest, built only
// with the quiretest tag (the browser harness and the tests that need it
// build with it; release builds do not have the flag): ingest then
// resolves NAME to a stand-in public address that connects to the local
// port, so a harness can ingest from a local site, while the fetch guard
// still refuses private and loopback addresses.

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/quire-app/quire/sidecar/ingest/fetch"
)

// testHostsFlag adds --test-hosts to a command's flags.
func testHostsFlag(fs *flag.FlagSet) *string {
	return fs.String("test-hosts", "", "test only: NAME=127.0.0.1:PORT,… lets ingest reach local test sites by name (the guard still applies)")
}

// testHosts is the test-only name map of --test-hosts: each name resolves
// to a fixed public address (so the guard checks it like any other and
// accepts it), and a dial to that address goes to a local port instead.
// Names not in the map, addresses typed in URLs and every redirect still
// go through the unchanged guard: http://127.0.0.1:PORT/ stays refused.
type testHosts struct {
	names   map[string]netip.Addr // name → stand-in public address
	targets map[netip.Addr]string // stand-in address → local host:port
	next    fetch.Resolver        // for every other name
}

// testHostBase is the first stand-in address: 198.20.0.0/16 is ordinary
// public unicast (just past the 198.18.0.0/15 benchmarking block, which
// the guard refuses, as it refuses the TEST-NET documentation blocks).
var testHostBase = netip.MustParseAddr("198.20.0.1")

// parseTestHosts reads NAME=127.0.0.1:PORT[,NAME2=…]; "" is none (nil).
func parseTestHosts(spec string) (*testHosts, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	th := &testHosts{names: map[string]netip.Addr{}, targets: map[netip.Addr]string{}, next: net.DefaultResolver}
	addr := testHostBase
	for _, part := range strings.Split(spec, ",") {
		name, target, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(name), "."))
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not NAME=127.0.0.1:PORT", part)
		}
		if _, err := netip.ParseAddr(name); err == nil {
			return nil, fmt.Errorf("%s: a name is needed, not an address", name)
		}
		ap, err := netip.ParseAddrPort(strings.TrimSpace(target))
		if err != nil || !ap.Addr().IsLoopback() {
			return nil, fmt.Errorf("%s: target %q must be a loopback address and port", name, target)
		}
		th.names[name] = addr
		th.targets[addr] = ap.String()
		addr = addr.Next()
	}
	return th, nil
}

// LookupIPAddr answers the mapped names with their stand-in address.
func (th *testHosts) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if a, ok := th.names[strings.ToLower(strings.TrimSuffix(host, "."))]; ok {
		return []net.IPAddr{{IP: net.IP(a.AsSlice())}}, nil
	}
	return th.next.LookupIPAddr(ctx, host)
}

// dial connects a stand-in address to its local port; anything else is
// dialled as asked. It is only ever called with addresses the guard has
// checked.
func (th *testHosts) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			if target, ok := th.targets[a]; ok {
				return d.DialContext(ctx, network, target)
			}
		}
	}
	return d.DialContext(ctx, network, addr)
}

// client returns a guarded fetch client, with the test names when th is
// not nil.
func (th *testHosts) client(opts fetch.Options) *fetch.Client {
	if th != nil {
		opts.Resolver, opts.Dialer = th, th.dial
	}
	return fetch.New(opts)
}

// String lists the mapping, for the log.
func (th *testHosts) String() string {
	var parts []string
	for n, a := range th.names {
		parts = append(parts, n+"="+a.String()+"→"+th.targets[a])
	}
	return strings.Join(parts, ", ")
}
