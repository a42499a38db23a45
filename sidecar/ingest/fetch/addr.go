package fetch

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// rule refuses one address range with the reason a user reads.
type rule struct {
	prefix netip.Prefix
	reason string
}

const (
	whyPrivate   = "a private address"
	whyLoopback  = "a loopback address"
	whyLinkLocal = "a link-local address"
	whyDoc       = "a documentation address"
	whyMulticast = "a multicast address"
)

// v4Rules are the IPv4 ranges that are not public unicast (IANA's
// special-purpose registry), most specific first.
var v4Rules = []rule{
	{netip.MustParsePrefix("0.0.0.0/32"), "the unspecified address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "in 0.0.0.0/8 (this network)"},
	{netip.MustParsePrefix("10.0.0.0/8"), whyPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (CGNAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), whyLoopback},
	{netip.MustParsePrefix("169.254.169.254/32"), "the link-local cloud metadata address"},
	{netip.MustParsePrefix("169.254.0.0/16"), whyLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), whyPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("192.0.2.0/24"), whyDoc},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay address"},
	{netip.MustParsePrefix("192.168.0.0/16"), whyPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), whyDoc},
	{netip.MustParsePrefix("203.0.113.0/24"), whyDoc},
	{netip.MustParsePrefix("224.0.0.0/4"), whyMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
}

// v6Rules are the IPv6 ranges refused outright. Ranges that embed an IPv4
// address (mapped, translated, NAT64, 6to4) are handled by embedded4
// instead, so a public IPv4 inside them stays reachable.
var v6Rules = []rule{
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("::1/128"), whyLoopback},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address (deprecated)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
	{netip.MustParsePrefix("2001:db8::/32"), whyDoc},
	{netip.MustParsePrefix("2001::/23"), "an IETF protocol address"},
	{netip.MustParsePrefix("3fff::/20"), whyDoc},
	{netip.MustParsePrefix("fc00::/7"), "a unique-local address"},
	{netip.MustParsePrefix("fe80::/10"), whyLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), whyMulticast},
}

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	translated6    = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// embedded4 returns the IPv4 address an IPv6 address stands for, when it
// is one of the forms that reach an IPv4 host: IPv4-mapped (::ffff:0:0/96),
// IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96) and 6to4
// (2002::/16).
func embedded4(a netip.Addr) (v4 netip.Addr, form string, ok bool) {
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case a.Is4In6():
		return a.Unmap(), "IPv4-mapped", true
	case translated6.Contains(a):
		return last, "IPv4-translated", true
	case nat64.Contains(a):
		return last, "NAT64", true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	}
	return netip.Addr{}, "", false
}

// reason returns why addr is refused, as a phrase that follows the address
// ("a private address"), or "" when it is a public unicast address.
func reason(a netip.Addr) string {
	if !a.IsValid() {
		return "not an address"
	}
	if a.Zone() != "" {
		return "an address with a zone"
	}
	if a.Is4() {
		for _, r := range v4Rules {
			if r.prefix.Contains(a) {
				return r.reason
			}
		}
		return ""
	}
	if v4, form, ok := embedded4(a); ok {
		if why := reason(v4); why != "" {
			return fmt.Sprintf("%s (%s %s)", why, form, v4)
		}
		return ""
	}
	for _, r := range v6Rules {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	if !globalUnicast6.Contains(a) {
		return "not a global unicast address"
	}
	return ""
}

// Check returns nil if addr is a public unicast address the guard lets a
// fetch connect to, or an *Error (Kind ErrRefused) saying which range it is
// in: loopback, private, link-local, CGNAT, multicast, unspecified,
// broadcast, documentation, reserved, IPv6 unique-local or site-local, and
// any IPv6 form that embeds such an IPv4 address.
func Check(addr netip.Addr) error {
	if why := reason(addr); why != "" {
		return &Error{Kind: ErrRefused, Addr: addr, Detail: addr.String() + " is " + why}
	}
	return nil
}

// parseHost reads a URL host (brackets already stripped) the way a browser
// does. An address literal in any spelling (IPv6, dotted IPv4, or the
// inet_aton forms 2130706433, 0x7f000001, 017700000001, 127.1) comes back as
// an address with isIP true; anything else is a name to resolve, returned
// lowercased without a trailing dot.
func parseHost(host string) (name string, addr netip.Addr, isIP bool, err error) {
	if host == "" {
		return "", netip.Addr{}, false, fmt.Errorf("empty host")
	}
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return "", netip.Addr{}, false, fmt.Errorf("invalid IPv6 address %q", host)
		}
		if a.Zone() != "" {
			return "", netip.Addr{}, false, fmt.Errorf("IPv6 address %q has a zone", host)
		}
		return "", a, true, nil
	}
	h := foldWidth(strings.ToLower(host))
	for _, r := range h {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("#%/:<>?@[\\]^|", r) {
			return "", netip.Addr{}, false, fmt.Errorf("invalid character %q in host", r)
		}
	}
	if endsInNumber(h) {
		a, ok := parseIPv4(h)
		if !ok {
			return "", netip.Addr{}, false, fmt.Errorf("invalid IPv4 address %q", host)
		}
		return "", a, true, nil
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return "", netip.Addr{}, false, fmt.Errorf("invalid host name %q", host)
	}
	return h, netip.Addr{}, false, nil
}

// foldWidth maps the full-width forms and ideographic dots a browser's IDNA
// mapping turns into ASCII, so "１２７。０。０。１" is read as the loopback
// address it is rather than sent to a resolver as a name.
func foldWidth(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u3002' || r == '\uff0e' || r == '\uff61':
			return '.'
		case r >= '\uff01' && r <= '\uff5e':
			return unicode.ToLower(r - 0xfee0)
		}
		return r
	}, s)
}

// endsInNumber is the WHATWG URL rule that decides whether a host is an
// IPv4 address: its last label (ignoring one trailing dot) is all digits or
// a valid 0x-hex, octal or decimal number.
func endsInNumber(h string) bool {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4 is the WHATWG IPv4 parser, which accepts what inet_aton does:
// one to four parts, each decimal, octal (leading 0) or hex (0x), the last
// part filling the remaining bytes.
func parseIPv4(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	// ParseUint takes a sign or underscores only with base 0; reject them
	// anyway so the digits are exactly what a browser accepts.
	if strings.ContainsAny(s, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	if errors.Is(err, strconv.ErrRange) {
		// Still a number, as far as the URL rules go, just too large for
		// any address: the caller refuses it as an invalid IPv4 host.
		return math.MaxUint64, true
	}
	if err != nil {
		return 0, false
	}
	return n, true
}

// localTLDs are suffixes no public DNS answers for: names a local network
// (mDNS, a home router, a company's resolver) gives private addresses, or
// none. RFC 6762 .local, RFC 8375 .home.arpa, ICANN's private-use
// .internal, and the unofficial ones routers and companies use.
var localTLDs = []string{"local", "localdomain", "lan", "home", "home.arpa", "internal", "intranet", "corp", "private"}

// localName says why the guard refuses a host name without asking DNS, or
// "": a loopback name (localhost, *.localhost), a single-label name (the
// resolver's search domains make it a local one) or a name under
// localTLDs. name is lowercased, without a trailing dot.
func localName(name string) string {
	switch {
	case name == "localhost" || strings.HasSuffix(name, ".localhost"):
		return name + " is a loopback name"
	case !strings.Contains(name, "."):
		return name + " is a single-label name, which only a local network resolves"
	}
	for _, tld := range localTLDs {
		if strings.HasSuffix(name, "."+tld) {
			return name + " is under ." + tld + ", which only a local network resolves"
		}
	}
	return ""
}

// LocalHost reports why the guard would refuse u's host without asking
// DNS: an address literal in any spelling that Check refuses, or a name
// only a local network resolves (localName). It returns "" for a public
// address and for any other name. Ingest uses it on the links and images
// a page carries, so a note never makes a viewer request inside the
// network. A public name that resolves to a private address is not caught
// here: DNS may answer otherwise when a viewer loads it, so only the fetch
// itself, which connects to the address it checked, can refuse it.
func LocalHost(u *url.URL) string {
	name, addr, isIP, err := parseHost(u.Hostname())
	switch {
	case err != nil:
		return ""
	case isIP:
		if why := reason(addr); why != "" {
			return why
		}
	default:
		return localName(name)
	}
	return ""
}
