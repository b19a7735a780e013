package main

import (
	"net"
	"strconv"
)

// pageHosts are the host:port addresses the status page is opened at for
// a listener at addr. The first is this machine's own: for a wildcard
// listener 127.0.0.1, as browsers refuse to open 0.0.0.0 (Go listens on
// both families for either wildcard where it can, and reports [::] then).
// The rest are for other machines: for a wildcard listener, each of this
// machine's unicast addresses it answers on (none when the interfaces
// cannot be listed). All are IP literals, the only names the page's API
// answers under.
func pageHosts(addr *net.TCPAddr) []string {
	port := strconv.Itoa(addr.Port)
	if !addr.IP.IsUnspecified() {
		return []string{net.JoinHostPort(addr.IP.String(), port)}
	}
	onlyV4 := addr.IP.To4() != nil
	hosts := []string{net.JoinHostPort("127.0.0.1", port)}
	ifaddrs, _ := net.InterfaceAddrs() // none listed: only the loopback page
	for _, a := range ifaddrs {
		n, ok := a.(*net.IPNet)
		if ok && n.IP.IsGlobalUnicast() && (!onlyV4 || n.IP.To4() != nil) {
			hosts = append(hosts, net.JoinHostPort(n.IP.String(), port))
		}
	}
	return hosts
}
