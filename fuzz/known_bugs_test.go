package fuzz

// Reproducers of bugs the fuzzers found in packages owned by others. Each
// test is skipped while its bug is open (so main stays green) and names the
// owner; remove the t.Skip (and the matching filter in the target) once the
// fix lands. The crashing inputs themselves are kept under
// testdata/fuzz/FuzzXxx as regression inputs.

import (
	"testing"

	"github.com/opensfc/sfc/layers"
)

// A pcapng capture made of interface description blocks makes the reader
// allocate about 60 times its size (10000 IDBs, 200 KB: 11.7 MB; 40000,
// 800 KB: 52.6 MB) and hold about 15 times it: gopacket's pcapgo.NgReader
// keeps an NgInterface (~300 octets) per 20-octet IDB, appended one by one,
// all read inside one call of Next before the first packet. A hostile
// capture of 1 GB would make sfcdump allocate ~60 GB. Found by
// TestCaptureAllocWorstCase (bounds_test.go). Owner: pcapio (the reader
// sfcdump and conformance use), upstream gopacket/pcapgo. Proposed fix: in
// pcapio, put a small pcapng block walker between the bufio.Reader and
// pcapgo (blocks are self-delimiting: type, total length) that counts
// interface description blocks per section and fails with a *FrameError
// after a limit (4096 is far above any real capture); upstream, an
// NgReaderOptions.MaxInterfaces.
func TestKnownBugPcapngInterfaceAlloc(t *testing.T) {
	t.Skip("known bug: a pcapng of interface blocks allocates ~60 x its size (pcapgo keeps an NgInterface per IDB); owner: pcapio / gopacket pcapgo")
	data := captureWorstCases()["10000 interfaces"]
	rp := &readPath{p: layers.NewParser()}
	if got, b := allocated(func() { rp.run(t, data) }), pcapBound(len(data)); got > b {
		t.Errorf("%d octets allocated for a %d-octet capture (%.1f ×), bound %d", got, len(data), float64(got)/float64(len(data)), b)
	}
}
