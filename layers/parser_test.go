// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

var (
	ltEth  = layers.LayerTypeEthernet
	ltIPv4 = layers.LayerTypeIPv4
	ltIPv6 = layers.LayerTypeIPv6
	ltUDP  = layers.LayerTypeUDP
	ltPay  = gopacket.LayerTypePayload
)

// TestParserFrames decodes whole frames, good and bad, and checks what the
// Parser reports: the layers, the error, the failed layer, truncation and
// the checks that need two layers.
func TestParserFrames(t *testing.T) {
	pfcOther := at(unhex(t, pfcHex), 0, 0x02, 0, 0, 0, 0, 0x07)
	pauseOther := at(unhex(t, pauseHex), 5, 0x02)
	vlanPFC := func() []byte {
		f := unhex(t, pfcHex)
		return cat(f[:12], []byte{0x81, 0x00, 0x60, 0x64}, f[12:])
	}()
	cimBig := at(unhex(t, cimL2Hex), 14+15, 0x01, 0x00)
	btsShort := serialize(t, optsFix, func() []gopacket.SerializableLayer {
		return udpStack(false, DefaultBTSPort, &BTS{PauseUS: 9, Quote: unhex(t, quoteIPv4Hex)[:27]})
	}()...)
	otherMagic := at(unhex(t, bfcHex), 14, 0x12, 0x34)
	unknownSub := at(unhex(t, bfcHex), 16, 0x09)
	gate := at(unhex(t, pauseHex), 14, 0x00, 0x02)
	arp := at(unhex(t, pauseHex), 12, 0x08, 0x06)
	cnpBadICRC := at(unhex(t, cnpV6Hex), 14+40+8+28, 0, 0, 0, 0)
	cnpUDPCut := at(unhex(t, cnpV4Hex), 14+20+4, 0x00, 0x18)
	for _, r := range []struct {
		name    string
		frame   []byte
		decoded []gopacket.LayerType
		err     error // nil: no error
		failed  gopacket.LayerType
		trunc   bool
		check   func(t *testing.T, p *Parser)
	}{
		{name: "pause-wrong-mac", frame: pauseOther, decoded: []gopacket.LayerType{ltEth, LayerTypePause},
			check: func(t *testing.T, p *Parser) {
				if p.Pause.Warnings != WarnDestMAC || p.Pause.Quanta != 0x1234 {
					t.Errorf("pause %+v", p.Pause)
				}
			}},
		{name: "pfc-wrong-mac", frame: pfcOther, decoded: []gopacket.LayerType{ltEth, LayerTypePFC},
			check: func(t *testing.T, p *Parser) {
				if p.PFC.Warnings != WarnDestMAC {
					t.Errorf("warnings %v", p.PFC.Warnings)
				}
			}},
		{name: "pfc-vlan", frame: vlanPFC, decoded: []gopacket.LayerType{ltEth, layers.LayerTypeDot1Q, LayerTypePFC},
			check: func(t *testing.T, p *Parser) {
				if p.PFC.Warnings != 0 || p.PFC.EnableVector != 0x21 || p.Dot1Q.VLANIdentifier != 100 || p.Dot1Q.Priority != 3 {
					t.Errorf("pfc %+v vlan %d", p.PFC, p.Dot1Q.VLANIdentifier)
				}
			}},
		{name: "maccontrol-other-opcode", frame: gate, decoded: []gopacket.LayerType{ltEth, LayerTypeMACControl, ltPay}},
		{name: "unknown-ethertype", frame: arp, decoded: []gopacket.LayerType{ltEth, layers.LayerTypeARP}[:1]},
		{name: "fcexp-other-magic", frame: otherMagic, decoded: []gopacket.LayerType{ltEth, LayerTypeFCExp, ltPay}},
		{name: "fcexp-unknown-subtype", frame: unknownSub, decoded: []gopacket.LayerType{ltEth, LayerTypeFCExp, ltPay}},
		{name: "cnp-bad-icrc", frame: cnpBadICRC, decoded: []gopacket.LayerType{ltEth, ltIPv6, ltUDP, LayerTypeBTH},
			check: func(t *testing.T, p *Parser) {
				if !p.BTH.ICRCChecked || p.BTH.ICRCOK || p.BTH.Warnings != WarnICRC {
					t.Errorf("ICRC checked %v ok %v warnings %v", p.BTH.ICRCChecked, p.BTH.ICRCOK, p.BTH.Warnings)
				}
			}},
		{name: "cnp-udp-length-cut", frame: cnpUDPCut, decoded: []gopacket.LayerType{ltEth, ltIPv4, ltUDP}, err: ErrLength, failed: LayerTypeBTH, trunc: true},
		// Cut after its addresses: they are kept, as Wireshark shows
		// them; the EtherType is not (EthPartial). Before them: nothing.
		{name: "ethernet-short", frame: []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08}, decoded: []gopacket.LayerType{ltEth}, failed: ltEth, err: ErrTruncated, trunc: true,
			check: func(t *testing.T, p *Parser) {
				if !p.EthPartial || p.Eth.DstMAC.String() != "02:00:00:00:00:02" || p.Eth.SrcMAC.String() != "02:00:00:00:00:01" || p.Eth.EthernetType != 0 {
					t.Errorf("partial %v, %v > %v type %v", p.EthPartial, p.Eth.SrcMAC, p.Eth.DstMAC, p.Eth.EthernetType)
				}
			}},
		{name: "ethernet-11", frame: make([]byte, 11), decoded: nil, failed: ltEth, err: errAny},
		// A VLAN tag cut after its TCI (PCP 5, DEI, VID 100): the tag is
		// kept, its EtherType is not (Dot1QPartial); behind a whole
		// 802.1ad tag, its TPID is that tag's EtherType.
		{name: "vlan-cut-after-tci", frame: []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xa8, 0x00, 0x07, 0x81, 0x00, 0xb0, 0x64}, decoded: []gopacket.LayerType{ltEth, layers.LayerTypeDot1Q, layers.LayerTypeDot1Q}, failed: layers.LayerTypeDot1Q, err: ErrTruncated, trunc: true,
			check: func(t *testing.T, p *Parser) {
				if !p.Dot1QPartial || p.Dot1Q.NTags != 2 {
					t.Fatalf("partial %v, %d tags", p.Dot1QPartial, p.Dot1Q.NTags)
				}
				if got, want := p.Dot1Q.Tags[1], (VLANTag{TPID: 0x8100, Priority: 5, DEI: true, ID: 100}); got != want {
					t.Errorf("cut tag %+v, want %+v", got, want)
				}
				if p.Dot1Q.Tags[0].TPID != 0x88a8 || p.Dot1Q.Tags[0].ID != 7 {
					t.Errorf("outer tag %+v", p.Dot1Q.Tags[0])
				}
			}},
		{name: "cim-msdu-too-long", frame: cimBig, decoded: []gopacket.LayerType{ltEth}, err: ErrLength, failed: LayerTypeCIM, trunc: true,
			check: func(t *testing.T, p *Parser) {
				if p.CIM.MSDULen != 256 || !p.CIM.Add || p.CIM.VID != 100 {
					t.Errorf("fields before the error lost: %+v", p.CIM)
				}
			}},
		{name: "bts-quote-short", frame: btsShort, decoded: []gopacket.LayerType{ltEth, ltIPv4, ltUDP}, err: ErrQuoteTooShort, failed: LayerTypeBTS,
			check: func(t *testing.T, p *Parser) {
				if p.BTS.PauseUS != 9 || len(p.BTS.Quote) != 27 || p.BTS.Version != 1 {
					t.Errorf("fields before the error lost: %+v", p.BTS)
				}
			}},
		{name: "pfc-cut", frame: unhex(t, pfcHex)[:14+10], decoded: []gopacket.LayerType{ltEth}, err: ErrTruncated, failed: LayerTypePFC, trunc: true},
		{name: "bfc-cut", frame: unhex(t, bfcHex)[:14+12+8], decoded: []gopacket.LayerType{ltEth}, err: ErrLength, failed: LayerTypeBFC, trunc: true},
	} {
		t.Run(r.name, func(t *testing.T) {
			p := NewParser()
			p.Decode(unhex(t, cnpV4Hex)) // leave state behind
			err := p.Decode(r.frame)
			switch {
			case r.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case r.err == errAny && err == nil, r.err != nil && r.err != errAny && !errors.Is(err, r.err):
				t.Fatalf("error %v, want %v", err, r.err)
			}
			if !slices.Equal(p.Decoded, r.decoded) {
				t.Errorf("decoded %v, want %v", p.Decoded, r.decoded)
			}
			if p.Failed != r.failed && !(r.err == nil && p.Failed == gopacket.LayerTypeZero) {
				t.Errorf("failed %v, want %v", p.Failed, r.failed)
			}
			if p.Truncated != r.trunc {
				t.Errorf("truncated %v, want %v", p.Truncated, r.trunc)
			}
			for _, lt := range r.decoded {
				if !p.Has(lt) || p.Layer(lt) == nil {
					t.Errorf("Has/Layer(%v)", lt)
				}
			}
			if r.check != nil {
				r.check(t, p)
			}
			// NewPacket agrees on the warnings and the error.
			pkt := gopacket.NewPacket(r.frame, layers.LayerTypeEthernet, gopacket.Default)
			if (pkt.ErrorLayer() != nil) != (r.err != nil) {
				t.Errorf("NewPacket error layer %v", pkt.ErrorLayer())
			}
			if r.failed != gopacket.LayerTypeZero && r.failed != ltEth && pkt.Layer(r.failed) == nil {
				t.Errorf("NewPacket has no %v layer holding the fields before the error: %v", r.failed, pkt.Layers())
			}
			if l := pkt.Layer(lastOurs(r.decoded)); l != nil && r.err == nil {
				if w, pw := warningsOf(l), warningsOf(p.Layer(l.LayerType()).(gopacket.Layer)); w != pw {
					t.Errorf("NewPacket warnings %v, Parser %v", w, pw)
				}
			}
		})
	}
}

var errAny = errors.New("any error")

func lastOurs(ls []gopacket.LayerType) gopacket.LayerType {
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i] >= 1500 && ls[i] < 1600 && ls[i] != LayerTypeMACControl && ls[i] != LayerTypeFCExp {
			return ls[i]
		}
	}
	return gopacket.LayerTypeZero
}

// TestRegisterUDPPort moves the BTS to another port and back, as sfcdump's
// "decode as" flag does, and checks NewPacket and Parser follow.
func TestRegisterUDPPort(t *testing.T) {
	build := func(port uint16) []byte {
		return serialize(t, optsFix, udpStack(false, port, &BTS{PauseUS: 7, Quote: unhex(t, quoteIPv4Hex)})...)
	}
	t.Cleanup(func() {
		UnregisterUDPPort(2021)
		RegisterUDPPort(DefaultBTSPort, LayerTypeBTS)
	})
	decodes := func(port uint16) (gopacket.LayerType, gopacket.LayerType) {
		frame := build(port)
		p := NewParser()
		if err := p.Decode(frame); err != nil {
			t.Fatalf("port %d: %v", port, err)
		}
		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		return p.Decoded[len(p.Decoded)-1], pkt.Layers()[len(pkt.Layers())-1].LayerType()
	}
	if a, b := decodes(2021); a != ltPay || b != ltPay {
		t.Fatalf("port 2021 before registering: %v %v", a, b)
	}
	RegisterUDPPort(2021, LayerTypeBTS)
	if a, b := decodes(2021); a != LayerTypeBTS || b != LayerTypeBTS {
		t.Errorf("port 2021 after registering: %v %v", a, b)
	}
	if got := UDPPorts(LayerTypeBTS); !slices.Equal(got, []uint16{DefaultBTSPort, 2021}) {
		t.Errorf("UDPPorts %v", got)
	}
	// Moving a port to another layer type takes it from the first.
	RegisterUDPPort(2021, LayerTypePostcard)
	if got := UDPPorts(LayerTypeBTS); !slices.Equal(got, []uint16{DefaultBTSPort}) {
		t.Errorf("UDPPorts(BTS) %v", got)
	}
	if got := UDPPorts(LayerTypePostcard); !slices.Contains(got, 2021) {
		t.Errorf("UDPPorts(Postcard) %v", got)
	}
	UnregisterUDPPort(DefaultBTSPort)
	if a, b := decodes(DefaultBTSPort); a != ltPay || b != ltPay {
		t.Errorf("port 1021 after unregistering: %v %v", a, b)
	}
	if got := UDPPorts(LayerTypeBTS); len(got) != 0 {
		t.Errorf("UDPPorts %v", got)
	}
	RegisterUDPPort(DefaultBTSPort, LayerTypeBTS)
	if a, b := decodes(DefaultBTSPort); a != LayerTypeBTS || b != LayerTypeBTS {
		t.Errorf("port 1021 after registering again: %v %v", a, b)
	}
}

// TestRegisterUDPPortEveryLayer moves each UDP format of this package to a
// port of its own and back, golden frame by golden frame, and checks that
// Parser and NewPacket follow: payload before, the layer after
// registering, payload again after unregistering.
func TestRegisterUDPPortEveryLayer(t *testing.T) {
	for i, c := range []struct {
		hex  string
		dst  int // offset of the UDP destination port
		want gopacket.LayerType
	}{
		{cnpV4Hex, 14 + 20 + 2, LayerTypeBTH},
		{cnpV6Hex, 14 + 40 + 2, LayerTypeBTH},
		{cimL3Hex, 14 + 20 + 2, LayerTypeCIM},
		{btsHex, 14 + 20 + 2, LayerTypeBTS},
		{postcardHex, 14 + 40 + 2, LayerTypePostcard},
	} {
		port := uint16(40001 + i)
		t.Cleanup(func() { UnregisterUDPPort(port) })
		frame := at(unhex(t, c.hex), c.dst, byte(port>>8), byte(port))
		// What follows UDP: the Parser's last layer, and NewPacket's first
		// layer that is ours or a payload (a BTH is followed by its
		// extension headers and payload).
		last := func() (gopacket.LayerType, gopacket.LayerType) {
			p := NewParser()
			_ = p.Decode(frame) // a BTH on a moved port fails its ICRC: a warning
			var np gopacket.LayerType
			for _, l := range gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default).Layers() {
				if lt := l.LayerType(); lt == c.want || lt == ltPay {
					np = lt
					break
				}
			}
			return p.Decoded[len(p.Decoded)-1], np
		}
		name := c.want.String()
		if a, b := last(); a != ltPay || b != ltPay {
			t.Errorf("%s on %d before registering: %v %v", name, port, a, b)
		}
		RegisterUDPPort(port, c.want)
		if a, b := last(); a != c.want || b != c.want {
			t.Errorf("%s on %d after registering: %v %v", name, port, a, b)
		}
		UnregisterUDPPort(port)
		if a, b := last(); a != ltPay || b != ltPay {
			t.Errorf("%s on %d after unregistering: %v %v", name, port, a, b)
		}
	}
}

// TestQuoteFollowsBTHPort checks that a quote names its DestQP when its
// UDP destination port is one registered for the BTH, and only then, on
// decodeQuote's straight path (IPv4) and on its checked path (IPv6 with a
// hop-by-hop header, which the straight path leaves to it).
func TestQuoteFollowsBTHPort(t *testing.T) {
	v4 := unhex(t, quoteIPv4Hex) // to 4791, DestQP 0x000123
	q6 := unhex(t, quoteIPv6Hex) // to 4791, DestQP 0x000456
	v6 := cat(at(q6[:40], 6, 0), []byte{17, 0, 1, 4, 0, 0, 0, 0}, q6[40:])
	if quoteStraight(v6) || !quoteStraight(v4) {
		t.Fatal("the quotes do not take the paths this test means them to")
	}
	to := func(q []byte, l4 int, port uint16) []byte { return at(q, l4+2, byte(port>>8), byte(port)) }
	quotes := []struct {
		name string
		q    []byte
		l4   int
		qp   uint32
	}{{"IPv4", v4, 20, 0x123}, {"IPv6 with hop-by-hop", v6, 48, 0x456}}
	t.Cleanup(func() {
		UnregisterUDPPort(40001)
		RegisterUDPPort(RoCEv2Port, LayerTypeBTH)
	})
	check := func(when string, port uint16, want bool) {
		t.Helper()
		for _, c := range quotes {
			f, err := DecodeQuote(to(c.q, c.l4, port))
			if err != nil {
				t.Fatalf("%s, %s: %v", when, c.name, err)
			}
			if f.HasQP != want || f.HasQP && f.QP != c.qp {
				t.Errorf("%s, %s: QP %#x, HasQP %v; want HasQP %v (QP %#x)", when, c.name, f.QP, f.HasQP, want, c.qp)
			}
		}
	}
	check("to 4791", RoCEv2Port, true)
	check("to 40001, unregistered", 40001, false)
	RegisterUDPPort(40001, LayerTypeBTH)
	check("to 40001, registered for the BTH", 40001, true)
	UnregisterUDPPort(RoCEv2Port)
	check("to 4791, unregistered", RoCEv2Port, false)
	RegisterUDPPort(RoCEv2Port, LayerTypeBTH)
	RegisterUDPPort(40001, LayerTypeBTS)
	check("to 40001, moved to BTS", 40001, false)
}

// TestDefaultRegistrations pins the code points of wire.md.
func TestDefaultRegistrations(t *testing.T) {
	for _, r := range []struct {
		et layers.EthernetType
		lt gopacket.LayerType
	}{{0x8808, LayerTypeMACControl}, {0x89a2, LayerTypeCIM}, {0x88b5, LayerTypeFCExp}} {
		if got := r.et.LayerType(); got != r.lt {
			t.Errorf("EtherType %#04x: %v, want %v", uint16(r.et), got, r.lt)
		}
	}
	for _, r := range []struct {
		port uint16
		lt   gopacket.LayerType
	}{{4791, LayerTypeBTH}, {35234, LayerTypeCIM}, {1021, LayerTypeBTS}, {1022, LayerTypePostcard}} {
		if got := layers.UDPPort(r.port).LayerType(); got != r.lt {
			t.Errorf("UDP %d: %v, want %v", r.port, got, r.lt)
		}
		if !slices.Contains(UDPPorts(r.lt), r.port) {
			t.Errorf("UDPPorts(%v) = %v", r.lt, UDPPorts(r.lt))
		}
	}
	if MACControlDst.String() != "01:80:c2:00:00:01" || HopByHopDst.String() != "01:80:c2:00:00:0e" {
		t.Error("destination MACs")
	}
	if !IsMACControlDst(MACControlDst) || IsMACControlDst(HopByHopDst) || IsMACControlDst(nil) {
		t.Error("IsMACControlDst")
	}
	for lt := gopacket.LayerType(1500); lt <= 1515; lt++ {
		if lt.String() == "" || lt.String() == "Unknown" {
			t.Errorf("layer type %d not registered", lt)
		}
	}
}

// A version nibble that does not match the EtherType is malformed, as
// Wireshark and the reference models say, not IPv4 or IPv6.
func TestParserIPVersion(t *testing.T) {
	p := NewParser()
	for _, c := range []struct {
		hex string
		at  int
		v   byte
		lt  gopacket.LayerType
	}{{cnpV4Hex, 14, 0x55, layers.LayerTypeIPv4}, {cnpV6Hex, 14, 0x46, layers.LayerTypeIPv6}} {
		frame := unhex(t, c.hex)
		frame[c.at] = c.v
		err := p.Decode(frame)
		if !errors.Is(err, ErrVersion) || p.Failed != c.lt || p.Has(LayerTypeBTH) {
			t.Errorf("version byte %#x: err %v failed %v decoded %v", c.v, err, p.Failed, p.Decoded)
		}
	}
}

// An error from one of gopacket's own layers names the layer and where it
// starts in the frame (gopacket's text says neither); the project's layers
// keep their *DecodeError.
func TestParserForeignErrorNamesLayer(t *testing.T) {
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
	ip := append([]byte{0x45, 0, 0, 18}, make([]byte, 16)...) // total length 18 < 20
	frame := append(append(append([]byte(nil), eth...), ip...), make([]byte, 20)...)
	p := NewParser()
	err := p.Decode(frame)
	var le *LayerError
	if !errors.As(err, &le) || le.At != 14 || le.Layer.String() != "IPv4" || !strings.HasPrefix(err.Error(), "IPv4 at frame offset 14: ") {
		t.Fatalf("error %v (%T), want IPv4 at frame offset 14", err, err)
	}
	// A cut PFC is the project's own error, unchanged.
	pfc := []byte{0x01, 0x80, 0xc2, 0, 0, 0x01, 2, 0, 0, 0, 0, 1, 0x88, 0x08, 0x01, 0x01, 0, 0x08}
	err = p.Decode(pfc)
	var de *DecodeError
	if !errors.As(err, &de) || errors.As(err, &le) {
		t.Fatalf("cut PFC: %v (%T), want a *DecodeError", err, err)
	}
}

// TestParserMissingNextHeader: a frame that ends exactly where a header
// the Parser decodes should begin (nothing after the EtherType of IPv4,
// IPv6, MAC Control or CIM; an IPv6 payload length of 0 with UDP next) is
// truncated there, as one more octet is (Wireshark: malformed); a layer
// that may end a frame (IPv6 with No Next Header) is not.
func TestParserMissingNextHeader(t *testing.T) {
	p := NewParser()
	eth := func(et string) []byte { return unhex(t, "020000000002020000000001"+et) }
	ip6 := func(nh string) []byte {
		return append(eth("86dd"), unhex(t, "6000000000 00"+nh+"40"+strings.Repeat("00", 15)+"01"+strings.Repeat("00", 15)+"02")...)
	}
	for _, c := range []struct {
		name   string
		frame  []byte
		failed gopacket.LayerType
		at     int
	}{
		{"IPv4 EtherType, nothing after", eth("0800"), layers.LayerTypeIPv4, 14},
		{"IPv6 EtherType, nothing after", eth("86dd"), layers.LayerTypeIPv6, 14},
		{"MAC Control EtherType, nothing after", eth("8808"), LayerTypeMACControl, 14},
		{"CIM EtherType, nothing after", eth("89a2"), LayerTypeCIM, 14},
		{"IPv6 payload length 0, UDP next", ip6("11"), layers.LayerTypeUDP, 54},
	} {
		err := p.Decode(c.frame)
		if !errors.Is(err, ErrTruncated) || p.Failed != c.failed || p.FailedAt != c.at || p.FailedLen != 0 {
			t.Errorf("%s: err %v, failed %v at %d (%d octets); want %v truncated at %d", c.name, err, p.Failed, p.FailedAt, p.FailedLen, c.failed, c.at)
		}
	}
	if err := p.Decode(ip6("3b")); err != nil || !p.Has(layers.LayerTypeIPv6) || p.IPv6.NextHeader != 59 || p.IPv6.Length != 0 {
		t.Errorf("IPv6 with No Next Header and payload length 0: err %v, decoded %v", err, p.Decoded)
	}
}
