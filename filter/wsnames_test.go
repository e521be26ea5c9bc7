// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// wsNameFilters name, by Wireshark 4.0's names, fields sfcdump decodes
// that filters refused as unknown: the IPv6 extension headers
// (ipv6.hopopts, ipv6.routing, ipv6.fraghdr, ipv6.dstopts and their
// fields), the I/G and U/L bits of the Ethernet addresses, the VLAN tag's
// DEI and the interface's description, over namesCapture.
var wsNameFilters = []string{
	// IPv6 extension headers: protocols by presence, then fields, with a
	// value per header of the kind (RFC 8200's order has two Destination
	// Options headers).
	"ipv6.hopopts",
	"ipv6 && !ipv6.hopopts",
	"ipv6.hopopts.nxt == 17",
	"ipv6.hopopts.nxt != 17",
	"ipv6.hopopts.nxt == 60",
	"ipv6.routing",
	"ipv6.routing.type == 4",
	"ipv6.routing.type != 4",
	"ipv6.routing.type == 0 || ipv6.routing.segleft == 1",
	"ipv6.routing.segleft == 2",
	"ipv6.routing.segleft > 0 && udp.dstport == 4791",
	"ipv6.routing.nxt == 44",
	"ipv6.routing.nxt != 17",
	"ipv6.fraghdr",
	"ipv6.fraghdr.more",
	"ipv6.fraghdr.more == 1",
	"ipv6.fraghdr.more == 0",
	"ipv6.fraghdr.more != 1",
	"ipv6.fraghdr.ident",
	"ipv6.fraghdr.ident == 0x1234",
	"ipv6.fraghdr.ident != 5",
	"ipv6.fraghdr.ident in {5..7}",
	"ipv6.fraghdr.nxt == 51",
	"ipv6.fraghdr.nxt != 51",
	"ipv6.fraghdr && udp",
	"ipv6.dstopts",
	"ipv6.dstopts.nxt == 17",
	"ipv6.dstopts.nxt != 43",
	"ipv6.dstopts.nxt ~= 17",
	"ipv6.dstopts.nxt == 43",
	"count(ipv6.dstopts.nxt) == 2",
	"all ipv6.dstopts.nxt == 17",
	"ipv6.dstopts && ipv6.hopopts",
	// The I/G bit (group address) and the U/L bit (locally
	// administered) of the destination, the source, or either (eth.ig,
	// eth.lg: both values, destination first).
	"eth.dst.ig && vlan",
	"eth.dst.ig == 1",
	"eth.dst.ig == 0",
	"eth.dst.ig != 1",
	"eth.dst.lg == 1",
	"eth.dst.lg == 0",
	"eth.src.ig == 1",
	"eth.src.ig != 1",
	"eth.src.lg == 1",
	"eth.src.lg == 0",
	"eth.src.lg != 0",
	"eth.src.ig == 1 && eth.src.lg == 1",
	"eth.ig == 1",
	"eth.ig == 0",
	"eth.ig != 0",
	"all eth.ig == 0",
	"eth.lg == 1",
	"eth.lg == 0",
	"eth.lg != 1",
	"count(eth.lg) == 2 && eth.lg == 0",
	"eth.ig && vlan.dei",
	// The VLAN tag's Drop Eligible Indicator, of each tag tshark decodes
	// as vlan (not an 802.1ad S-tag's); vlan.cfi, 802.1Q-1998's name of
	// the bit, is in no frame by tshark 4.0's defaults.
	"vlan.dei",
	"vlan.dei == 1",
	"vlan.dei == 0",
	"vlan.dei != 0",
	"vlan.dei == 1 && vlan.id == 20",
	"count(vlan.dei) == 2",
	"vlan.cfi || vlan.dei == 1",
	"!vlan.cfi && vlan",
	"vlan.cfi == 1 || vlan.dei == 0",
	// The interface's description (pcapng if_description).
	"frame.interface_description",
	"!frame.interface_description",
	`frame.interface_description == "uplink to spine 1"`,
	`frame.interface_description != "uplink to spine 1"`,
	`frame.interface_description contains "rack"`,
	`frame.interface_description matches "^downlink"`,
	`frame.interface_description > "a"`,
}

// namesFrames are frames namesCapture adds to the extension header and
// VLAN captures: group, locally administered and universal addresses in
// either place, and tags with DEI set.
var namesFrames = []string{
	// One tag, DEI set (TCI 0x700a: priority 3, VID 10); to a multicast
	// group from a universal address.
	"01005e000001" + "001b21000001" + "8100700a" + "0800" + ipv4UDP,
	// QinQ of two 802.1Q tags, DEI on the inner one; broadcast from a
	// locally administered address.
	"ffffffffffff" + "020000000009" + "81000064" + "81001014" + "0800" + ipv4UDP,
	// A group source (locally administered too) to a universal unicast
	// address.
	"001b21000002" + "030000000001" + "88b5" + zeros46,
	// Group addresses both: eth.ig has no 0.
	"0180c2000001" + "030000000002" + "88b5" + zeros46,
	// An 802.1ad S-tag with DEI set (ieee8021ad to tshark, not vlan) and
	// an 802.1Q tag without.
	"0180c200000e" + "001b21000003" + "88a81005" + "81000007" + "0800" + ipv4UDP,
}

const (
	ipv4UDP = "45000020000100004011" + "0000" + "0a0000010a000002" + "c0000fa0000c0000" + "61626364"
	zeros46 = "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
)

// namesCapture writes the frames of layers/testdata/ipv6ext/frames.pcap
// (IPv6 extension headers of each kind, alone and in RFC 8200's order,
// fragments), layers/testdata/vlan9100.pcap (tags of TPID 0x9100 and
// 0x88A8) and namesFrames into one pcapng as tsharkSelect reads it, on
// three interfaces in turn: one named and described, one named only, one
// described only.
func namesCapture(t *testing.T) (string, []*dissect.Frame) {
	extra := filepath.Join(t.TempDir(), "names.pcap")
	f, err := os.Create(extra)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, glayers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, h := range namesFrames {
		data, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("namesFrames[%d]: %v", i, err)
		}
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 0), CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ifs := []pcapio.Interface{
		{Name: "port0", Description: "uplink to spine 1", LinkType: glayers.LinkTypeEthernet},
		{Name: "port1", LinkType: glayers.LinkTypeEthernet},
		{Description: "downlink, rack 7", LinkType: glayers.LinkTypeEthernet},
	}
	return statCaptureOn(t, ifs, []string{"../layers/testdata/ipv6ext/frames.pcap", "../layers/testdata/vlan9100.pcap", extra}, nil,
		func(file string, fr *dissect.Frame) bool {
			if fr.Err != nil {
				t.Fatalf("%s frame %d: %v", file, fr.Number, fr.Err)
			}
			return true
		})
}

// TestWiresharkNamesTshark: each filter of wsNameFilters selects the
// frames tshark 4.0 selects (before, each name was an unknown field), and
// every Wireshark name sfcdump knows prints as tshark -T fields prints it
// on these frames.
func TestWiresharkNamesTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	path, frames := namesCapture(t)
	theirs := tsharkSelect(t, bin, path, wsNameFilters, len(frames))
	for i, expr := range wsNameFilters {
		sameSelection(t, expr, frames, theirs[i])
	}
	var names []string
	for _, w := range dissect.WiresharkNames() {
		if w.Field != nil {
			names = append(names, w.Name)
		}
	}
	// The CNP's ICRC is tshark's infiniband.vendor; our ipv6.nxt is the
	// upper-layer protocol (docs/interop.md).
	skip := map[string]func(fr *dissect.Frame) bool{
		"infiniband.invariant.crc": func(fr *dissect.Frame) bool { return fr.P.BTH.Opcode == 129 },
		"ipv6.nxt":                 func(fr *dissect.Frame) bool { return fr.P.Has(layers.LayerTypeIPv6Ext) },
	}
	sameFields(t, bin, path, frames, 1, names, skip)
}

// TestClassicInterfaceTshark: a frame of a classic pcap, which has no
// interfaces, has no frame.interface_id (nor a name or description), as
// in tshark; before, its frame.interface_id was 0. The frames of the
// pcapng of namesCapture, which has interfaces, come first: the
// selections over both are compared, so that each filter separates them.
func TestClassicInterfaceTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	ngPath, frames := namesCapture(t)
	const classic = "../layers/testdata/vlan9100.pcap"
	r, err := pcapio.Open(classic)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.IsPcapng() {
		t.Fatalf("%s is a pcapng", classic)
	}
	var classicFrames []*dissect.Frame
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		p := layers.NewParser()
		df := &dissect.Frame{Number: len(classicFrames) + 1, Time: fr.Time, Interface: fr.Interface, Len: fr.Len,
			CapLen: len(fr.Data), P: p, Classic: true}
		df.Err = p.Decode(fr.Data)
		classicFrames = append(classicFrames, df)
	}
	exprs := []string{
		"frame.interface_id",
		"!frame.interface_id",
		"frame.interface_id == 0",
		"frame.interface_id != 1",
		"frame.interface_id < 2",
		"frame.interface_id in {0}",
		"count(frame.interface_id) == 1",
		"frame.interface_description || frame.interface_name",
	}
	ngTheirs := tsharkSelect(t, bin, ngPath, exprs, len(frames))
	all := append(append([]*dissect.Frame(nil), frames...), classicFrames...)
	for _, fr := range classicFrames {
		fr.Number += len(frames) // after the pcapng's, as they are compared
	}
	for i, expr := range exprs {
		theirs := ngTheirs[i]
		for _, n := range strings.Fields(tshark(t, bin, "-n", "-r", classic, "-Y", expr, "-T", "fields", "-e", "frame.number")) {
			k, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("tshark: frame number %q", n)
			}
			theirs = append(theirs, strconv.Itoa(k+len(frames)))
		}
		sameSelection(t, expr, all, theirs)
	}
	sameFields(t, bin, classic, classicFrames, 0, []string{"frame.interface_id", "frame.interface_description", "frame.number"},
		map[string]func(*dissect.Frame) bool{"frame.number": func(*dissect.Frame) bool { return true }})
}
