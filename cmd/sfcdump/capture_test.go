// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
)

// inNetns runs fn on a thread switched into network namespace ns (as
// created by `ip netns add`). Sockets fn opens stay in ns.
func inNetns(t *testing.T, ns string, fn func() error) error {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return err
	}
	defer orig.Close()
	target, err := os.Open(filepath.Join("/var/run/netns", ns))
	if err != nil {
		return err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns %s: %w", ns, err)
	}
	ferr := fn()
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread is in the wrong namespace: let it die with the test.
		runtime.Goexit()
	}
	return ferr
}

// TestCaptureLive sends the sample frames over a veth pair between two
// network namespaces the test creates, and decodes them with sfcdump
// capture on the other end.
func TestCaptureLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture test needs root (network namespaces, AF_PACKET): skipped")
	}
	ipBin, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("live capture test needs iproute2's ip: skipped")
	}
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ipBin, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	id := fmt.Sprintf("%d", os.Getpid())
	nsA, nsB := "sfcdump-a-"+id, "sfcdump-b-"+id
	ip("netns", "add", nsA)
	t.Cleanup(func() { exec.Command(ipBin, "netns", "del", nsA).Run() })
	ip("netns", "add", nsB)
	t.Cleanup(func() { exec.Command(ipBin, "netns", "del", nsB).Run() })
	ip("link", "add", "sfca", "netns", nsA, "type", "veth", "peer", "name", "sfcb", "netns", nsB)
	ip("-n", nsA, "link", "set", "sfca", "up")
	ip("-n", nsB, "link", "set", "sfcb", "up")
	// Frames sent before the veth pair has its carrier are dropped (and the
	// capture then waits for --duration): wait for LOWER_UP on both ends.
	for _, end := range [][2]string{{nsA, "sfca"}, {nsB, "sfcb"}} {
		for i := 0; ; i++ {
			out, _ := exec.Command(ipBin, "-n", end[0], "-o", "link", "show", end[1]).CombinedOutput()
			if strings.Contains(string(out), "LOWER_UP") {
				break
			}
			if i == 500 {
				t.Fatalf("%s in %s has no carrier after 5 s: %s", end[1], end[0], out)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// Open the capture handle inside nsB before anything is sent.
	var h liveHandle
	if err := inNetns(t, nsB, func() (err error) {
		h, err = openLive("sfcb", true, 0)
		return err
	}); err != nil {
		t.Fatalf("opening the capture in %s: %v", nsB, err)
	}
	saved := openLive
	openLive = func(iface string, promisc bool, snaplen int) (liveHandle, error) {
		if iface != "sfcb" {
			return nil, fmt.Errorf("test opened only sfcb, not %s", iface)
		}
		return h, nil
	}
	defer func() { openLive = saved }()

	// The speed the kernel gives the interface: /sys shows the test's own
	// namespace, not nsB, so a made-up one says 25G.
	fakeSys := t.TempDir()
	os.MkdirAll(filepath.Join(fakeSys, "sfcb"), 0o755)
	os.WriteFile(filepath.Join(fakeSys, "sfcb", "speed"), []byte("25000\n"), 0o644)
	savedSys := sysNet
	sysNet = fakeSys
	defer func() { sysNet = savedSys }()

	frames := sample.Frames()
	// The kernel may send its own frames (IPv6 neighbour discovery) on the
	// new link: keep only the frames the test sends.
	const ours = "eth.src == 02:00:00:00:00:01 || eth.src == 02:00:00:00:00:02"
	out := filepath.Join(t.TempDir(), "live.pcapng")
	type result struct {
		out, errs string
		code      int
	}
	res := make(chan result, 1)
	go func() {
		o, e, c := sfcdump(t, "capture", "-i", "sfcb", "-c", fmt.Sprint(len(frames)), "--duration", "20s",
			"-Y", ours, "-w", out, "-P")
		res <- result{o, e, c}
	}()

	if err := inNetns(t, nsA, func() error { return sendFrames("sfca", frames) }); err != nil {
		t.Fatalf("sending from %s: %v", nsA, err)
	}

	var r result
	select {
	case r = <-res:
	case <-time.After(30 * time.Second):
		t.Fatal("capture did not finish")
	}
	if r.code != 0 || r.errs != "" {
		t.Fatalf("capture: exit %d, stderr %q, stdout:\n%s", r.code, r.errs, r.out)
	}
	// Every frame decodes as it does from the sample capture: compare the
	// summaries without frame numbers and times.
	want, _, _ := sfcdump(t, "read", "--speed", "25G", "../../pcaps/sample.pcapng") // pauses at the interface's 25G
	summaries := func(s string, skip int) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if f := strings.Fields(l); len(f) > skip {
				out = append(out, strings.Join(f[skip:], " "))
			}
		}
		return out
	}
	got, exp := summaries(r.out, 2), summaries(want, 3) // the file also names the interface
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Errorf("live capture decoded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(exp, "\n"))
	}
	// -w saved the same frames.
	back, errs, code := sfcdump(t, "read", out)
	if code != 0 || errs != "" || strings.Join(summaries(back, 3), "\n") != strings.Join(exp, "\n") || !strings.Contains(back, " sfcb ") {
		t.Errorf("saved capture (exit %d, %q):\n%s", code, errs, back)
	}
	// ... on an interface of the speed the kernel reports, recorded as
	// its if_speed.
	if r, err := pcapio.Open(out); err != nil || r.Interface(0).Speed != 25e9 {
		t.Errorf("saved capture: %v, interface %+v; want if_speed 25G", err, r.Interface(0))
	}
}

// TestIfaceSpeed: an interface's speed is what /sys/class/net says in
// Mb/s; unknown (0) when the file is missing, says -1 (a link down) or
// is not a number, or the name could leave the directory.
func TestIfaceSpeed(t *testing.T) {
	dir := t.TempDir()
	saved := sysNet
	sysNet = dir
	defer func() { sysNet = saved }()
	for name, v := range map[string]string{"eth0": "100000\n", "eth1": "-1\n", "eth2": "fast", "eth3": "25000"} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "speed"), []byte(v), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "speed"), []byte("1000"), 0o644)
	for name, want := range map[string]uint64{"eth0": 100e9, "eth1": 0, "eth2": 0, "eth3": 25e9, "nosuch": 0, ".": 0, "../" + filepath.Base(dir): 0} {
		if got := ifaceSpeed(name); got != want {
			t.Errorf("%q: %d, want %d", name, got, want)
		}
	}
}

// sendFrames sends each frame on link iface of the calling thread's
// network namespace through an AF_PACKET socket.
func sendFrames(iface string, frames []sample.Frame) error {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifi, err := netInterfaceIndex(iface)
	if err != nil {
		return err
	}
	for _, f := range frames {
		sa := &unix.SockaddrLinklayer{Ifindex: ifi, Halen: 6}
		copy(sa.Addr[:], f.Data[:6])
		if err := unix.Sendto(fd, f.Data, 0, sa); err != nil {
			return fmt.Errorf("send %q: %w", f.Name, err)
		}
	}
	return nil
}

// netInterfaceIndex returns the index of a link in the calling thread's
// network namespace (netlink, unlike /sys, follows the thread).
func netInterfaceIndex(name string) (int, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return 0, err
	}
	return ifi.Index, nil
}

// TestCaptureLoopbackOnce: on a loopback interface a packet socket sees
// each frame twice (sent, then received); capture keeps one copy, as
// tcpdump -i lo does. The frames are sent on the lo of a namespace the
// test creates.
func TestCaptureLoopbackOnce(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIP: the loopback capture test needs root (a network namespace, AF_PACKET)")
	}
	ipBin, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("SKIP: the loopback capture test needs iproute2's ip")
	}
	ns := fmt.Sprintf("sfcdump-lo-%d", os.Getpid())
	if out, err := exec.Command(ipBin, "netns", "add", ns).CombinedOutput(); err != nil {
		t.Skipf("SKIP: ip netns add: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(ipBin, "netns", "del", ns).Run() })
	if out, err := exec.Command(ipBin, "-n", ns, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip link set lo up: %v\n%s", err, out)
	}
	var h liveHandle
	if err := inNetns(t, ns, func() (err error) {
		h, err = openLive("lo", false, 0)
		return err
	}); err != nil {
		t.Fatalf("opening the capture on lo in %s: %v", ns, err)
	}
	saved := openLive
	openLive = func(string, bool, int) (liveHandle, error) { return h, nil }
	defer func() { openLive = saved }()
	frames := sample.Frames()[:5]
	out := filepath.Join(t.TempDir(), "lo.pcapng")
	res := make(chan [3]string, 1)
	go func() {
		o, e, c := sfcdump(t, "capture", "-i", "lo", "--duration", "2s", "-Y", "eth.src == 02:00:00:00:00:01 || eth.src == 02:00:00:00:00:02", "-w", out)
		res <- [3]string{o, e, fmt.Sprint(c)}
	}()
	time.Sleep(200 * time.Millisecond)
	if err := inNetns(t, ns, func() error { return sendFrames("lo", frames) }); err != nil {
		t.Fatalf("sending on lo: %v", err)
	}
	var r [3]string
	select {
	case r = <-res:
	case <-time.After(30 * time.Second):
		t.Fatal("capture did not finish")
	}
	if r[2] != "0" {
		t.Fatalf("capture: exit %s, stderr %q", r[2], r[1])
	}
	lines, errs, code := sfcdump(t, "read", out)
	if n := strings.Count(strings.TrimSpace(lines), "\n") + 1; code != 0 || n != len(frames) {
		t.Errorf("%d frames captured on lo for %d sent (exit %d, %q):\n%s", n, len(frames), code, errs, lines)
	}
}
