//go:build linux

package live

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/opensfc/sfc/liveio"
)

// testbed is a network namespace the test made, with veth pairs tN (the
// tester's side) and dN (the device's side) for each port N.
type testbed struct {
	ns    string
	ports int
}

// newTestbed makes a namespace with n veth pairs, or skips the test with
// the reason when it cannot (not root, no ip command, no namespaces);
// with CI=true and root, it fails instead of skipping.
func newTestbed(t *testing.T, n int) *testbed {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
			t.Fatalf("CI=true and root, yet: %s", msg)
		}
		t.Skipf("live test skipped: %s", msg)
	}
	if os.Geteuid() != 0 {
		skip("needs root for network namespaces and AF_PACKET sockets (run as root, e.g. sudo go test)")
	}
	ipBin, err := exec.LookPath("ip")
	if err != nil {
		skip("needs iproute2's ip command (apt-get install iproute2)")
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	tb := &testbed{ns: "sfclive-" + hex.EncodeToString(rnd[:]), ports: n}
	if out, err := exec.Command(ipBin, "netns", "add", tb.ns).CombinedOutput(); err != nil {
		skip("cannot create a network namespace: ip netns add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command(ipBin, "netns", "del", tb.ns).Run() })
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ipBin, append([]string{"-n", tb.ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip -n %s %s: %v\n%s", tb.ns, strings.Join(args, " "), err, out)
		}
	}
	// No IPv6 (no router solicitations or MLD reports) and no addresses:
	// the kernel sends nothing on these links by itself.
	sysctl := func(k, v string) {
		if out, err := exec.Command(ipBin, "netns", "exec", tb.ns, "sysctl", "-qw", k+"="+v).CombinedOutput(); err != nil {
			t.Logf("sysctl %s=%s: %v %s", k, v, err, out)
		}
	}
	sysctl("net.ipv6.conf.all.disable_ipv6", "1")
	sysctl("net.ipv6.conf.default.disable_ipv6", "1")
	for i := 0; i < n; i++ {
		a, b := fmt.Sprintf("t%d", i), fmt.Sprintf("d%d", i)
		ip("link", "add", a, "mtu", "9000", "type", "veth", "peer", "name", b, "mtu", "9000")
		ip("link", "set", a, "arp", "off", "up")
		ip("link", "set", b, "arp", "off", "up")
	}
	return tb
}

// inNetns runs fn on a thread switched into the namespace: sockets fn
// opens stay in it.
func (tb *testbed) inNetns(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return err
	}
	defer orig.Close()
	target, err := os.Open(filepath.Join("/var/run/netns", tb.ns))
	if err != nil {
		return err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns %s: %w", tb.ns, err)
	}
	ferr := fn()
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.Goexit() // the thread is in the wrong namespace: let it die
	}
	return ferr
}

// open opens an interface of the namespace.
func (tb *testbed) open(iface string, o liveio.Options) (p *liveio.Port, err error) {
	err = tb.inNetns(func() error {
		p, err = DefaultOpen(iface, o)
		return err
	})
	return p, err
}
