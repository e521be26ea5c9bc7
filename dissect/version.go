// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"github.com/gopacket/gopacket"

	"github.com/opensfc/sfc/layers"
)

// The formats whose version field says how the rest of the header reads
// (BTS, postcard, CIM, BFC, Floodgate credit and dst-pause). A frame of a
// version the layer does not know (layers.ErrVersion) had only its version
// decoded: its other fields are absent (null in JSON, empty in -T fields,
// matched by no comparison, left out of the verbose tree), not 0. The
// version, and the error saying it is unknown, stay.

// versionedProtos are the protocols of Protos decoded by a layer that
// reads its version first, by the layer.
var versionedProtos = map[string]gopacket.LayerType{
	"bts": layers.LayerTypeBTS, "postcard": layers.LayerTypePostcard, "cim": layers.LayerTypeCIM,
	"bfc": layers.LayerTypeBFC, "fgcredit": layers.LayerTypeFGCredit, "fgpause": layers.LayerTypeFGPause,
}

// initVersioned marks every field of versionedProtos but the version
// (Field.vlayer). Called by fields.go's init, once every field, extra
// fields included, is registered.
func initVersioned() {
	for _, fd := range byName {
		if lt, ok := versionedProtos[fd.proto.Name]; ok && fd.Short != "version" {
			fd.vlayer = lt
		}
	}
}

// unknownVersion reports whether f's layer lt failed on a version it does
// not know: its own version field. A BTS's or postcard's quote of an IP
// version other than 4 or 6 is ErrVersion too, but in the field "quote":
// every field before the quote was decoded, and stays. Our layers return
// a *layers.DecodeError as is (errors.As would make its target escape: an
// allocation per malformed frame in a filter).
func unknownVersion(f *Frame, lt gopacket.LayerType) bool {
	de, ok := f.Err.(*layers.DecodeError)
	return ok && de.Err == layers.ErrVersion && de.Field == "version" && f.P.Failed == lt
}

// versionOff reports whether field fd is absent from f because its layer
// has a version it does not know (only the version was decoded).
func (fd *Field) versionOff(f *Frame) bool {
	return fd.vlayer != gopacket.LayerTypeZero && f.Err != nil && unknownVersion(f, fd.vlayer)
}
