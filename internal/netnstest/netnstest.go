// SPDX-License-Identifier: Apache-2.0

//go:build linux

// Package netnstest gives tests a network namespace of their own with
// veth pairs in it, for the live tools (package liveio, conformance/live,
// sfcdump conform live and emulate). Traffic stays inside the namespace.
package netnstest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/opensfc/sfc/liveio"
)

// Bed is a network namespace made for one test, with veth pairs tN (a
// tester's side) and dN (a device's side) for N = 0, 1, ...
type Bed struct {
	// NS is the namespace's name (ip netns).
	NS string
	// Pairs is the number of veth pairs.
	Pairs int
}

// New makes a namespace with n veth pairs (MTU 9000, no ARP, IPv6 off, no
// addresses: the kernel sends nothing on them by itself) and deletes it
// when the test ends. It skips the test with the reason when it cannot
// (not root, no ip command, no namespaces); with CI=true and root, it
// fails instead of skipping.
func New(t testing.TB, n int) *Bed {
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
		skip("needs root for network namespaces and AF_PACKET sockets (run the tests as root)")
	}
	ipBin, err := exec.LookPath("ip")
	if err != nil {
		skip("needs iproute2's ip command (apt-get install iproute2)")
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	b := &Bed{NS: "sfclive-" + hex.EncodeToString(rnd[:]), Pairs: n}
	if out, err := exec.Command(ipBin, "netns", "add", b.NS).CombinedOutput(); err != nil {
		skip("cannot create a network namespace: ip netns add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command(ipBin, "netns", "del", b.NS).Run() })
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ipBin, append([]string{"-n", b.NS}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip -n %s %s: %v\n%s", b.NS, strings.Join(args, " "), err, out)
		}
	}
	for _, k := range []string{"all", "default"} {
		if out, err := exec.Command(ipBin, "netns", "exec", b.NS, "sysctl", "-qw", "net.ipv6.conf."+k+".disable_ipv6=1").CombinedOutput(); err != nil {
			t.Logf("disabling IPv6 in %s: %v %s", b.NS, err, out)
		}
	}
	for i := 0; i < n; i++ {
		a, d := fmt.Sprintf("t%d", i), fmt.Sprintf("d%d", i)
		ip("link", "add", a, "mtu", "9000", "type", "veth", "peer", "name", d, "mtu", "9000")
		ip("link", "set", a, "arp", "off", "up")
		ip("link", "set", d, "arp", "off", "up")
	}
	return b
}

// Do runs fn on a thread switched into the namespace: sockets fn opens
// stay in it.
func (b *Bed) Do(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return err
	}
	defer orig.Close()
	target, err := os.Open(filepath.Join("/var/run/netns", b.NS))
	if err != nil {
		return err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns %s: %w", b.NS, err)
	}
	ferr := fn()
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.Goexit() // the thread is in the wrong namespace: let it die
	}
	return ferr
}

// Open opens an interface of the namespace with liveio.Open.
func (b *Bed) Open(iface string, o liveio.Options) (p *liveio.Port, err error) {
	err = b.Do(func() error {
		p, err = liveio.Open(iface, o)
		return err
	})
	return p, err
}

// Prioritize raises the scheduling priority of every thread of the
// process to nice -10 (threads made later inherit it), when it can (root):
// the live tests' sender, capture and emulator then keep their schedule
// on a machine busy with other tests, as a test set would run them. It
// says nothing about verdicts: a run the host still spoils is INCONCLUSIVE.
// It returns how many threads it raised.
func Prioritize() int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if unix.Setpriority(unix.PRIO_PROCESS, tid, -10) == nil {
			n++
		}
	}
	return n
}
