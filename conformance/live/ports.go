// SPDX-License-Identifier: Apache-2.0

package live

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/liveio"
)

// PortMap maps the name of a port to a host interface. A name is a port
// id ("0"), its capture interface name ("port0", or the case's
// `interface:`), or "host" for a NIC's host side.
type PortMap map[string]string

// ParsePortMap parses NAME=IFACE arguments (--port), rejecting malformed
// ones and names given twice.
func ParsePortMap(args []string) (PortMap, error) {
	m := PortMap{}
	for _, a := range args {
		name, iface, ok := strings.Cut(a, "=")
		if !ok || name == "" || iface == "" {
			return nil, fmt.Errorf("--port %q: want NAME=IFACE (a port id, its interface name or host, then a host interface)", a)
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("--port %q: port %s is mapped twice", a, name)
		}
		m[name] = iface
	}
	return m, nil
}

// portID resolves a port name against c: a port id, the case's interface
// name for it, "port<id>", or "host" (a NIC's host side).
func portID(c *conformance.Case, name string) (int, bool) {
	names := c.InterfaceNames()
	for i, n := range names {
		if n == name && !strings.HasPrefix(n, "unused") {
			return i, true
		}
	}
	if c.Role == device.RoleNIC && name == "host" {
		return device.HostPort, true
	}
	if id, err := strconv.Atoi(name); err == nil {
		if c.Role == device.RoleNIC && (id == device.WirePort || id == device.HostPort) {
			return id, true
		}
		if c.Port(id) != nil {
			return id, true
		}
	}
	return 0, false
}

// Resolve maps the port names of m to the port ids of c (interface index
// in the vector's captures). Names that are no port of c are returned in
// unknown, sorted; an interface given to two ports is an error.
//
// A NIC's host side is port 1 of its captures but no port of its case:
// "host" names it, and a numeric "1" given beside "host" is a port the
// vector does not have (one port map, 0..N and host, serves a corpus of
// switches and NICs).
func (m PortMap) Resolve(c *conformance.Case) (ids map[int]string, unknown []string, err error) {
	ids = map[int]string{}
	_, hostNamed := m["host"]
	for name, iface := range m {
		id, ok := portID(c, name)
		if ok && c.Role == device.RoleNIC && id == device.HostPort && name != "host" && hostNamed {
			ok = false
		}
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		if prev, dup := ids[id]; dup {
			return nil, nil, fmt.Errorf("port %s is mapped twice (%s and %s)", c.PortName(id), prev, iface)
		}
		ids[id] = iface
	}
	seen := map[string]int{}
	for id, iface := range ids {
		if prev, dup := seen[iface]; dup {
			return nil, nil, fmt.Errorf("interface %s is mapped to two ports (%s and %s)", iface, c.PortName(prev), c.PortName(id))
		}
		seen[iface] = id
	}
	sort.Strings(unknown)
	return ids, unknown, nil
}

// OpenFunc opens a host interface; the default is liveio.Open. Tests
// replace it to open interfaces in a network namespace.
type OpenFunc func(iface string, o liveio.Options) (*liveio.Port, error)

// DefaultOpen is liveio.Open.
func DefaultOpen(iface string, o liveio.Options) (*liveio.Port, error) {
	return liveio.Open(iface, o)
}

// speedOf returns the speed of port id of c in bit/s (the wire port's for
// a NIC's host side).
func speedOf(c *conformance.Case, id int) int64 {
	if p := c.Port(id); p != nil {
		return p.Speed
	}
	if len(c.Ports) > 0 {
		return c.Ports[0].Speed
	}
	return 0
}
