// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/opensfc/sfc/internal/blake3x"
)

// Digest names the hash of a report's content digests (conformance.md
// "Reports": the vector's and the device capture's). A digest is written
// as the name, a colon and the hex hash ("blake3:9f4c…"), so a report
// says which hash it used.
//
// BLAKE3 (256-bit output) is the default: as collision resistant as
// SHA-256 and, on one core of the machines we measure, two to four times
// as fast (3.3 GB/s with AVX2, 6 with internal/blake3x's AVX-512 kernel,
// against 1.7 with SHA-NI), which device mode needs: it hashes both
// captures whole, and at 1M frames per second SHA-256 alone took a third
// of the time (docs/decisions.md "Digests"). `b3sum FILE`
// gives a file's BLAKE3 digest; `--digest sha256` gives what `sha256sum`
// gives, for a quality team whose records hold SHA-256.
type Digest string

// The digests a report can use.
const (
	DigestBLAKE3 Digest = "blake3"
	DigestSHA256 Digest = "sha256"
)

// Digests lists every Digest, the default first.
var Digests = []Digest{DigestBLAKE3, DigestSHA256}

// ParseDigest returns the Digest named s, or an error naming the choices.
func ParseDigest(s string) (Digest, error) {
	for _, d := range Digests {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown digest %q: want blake3 or sha256", s)
}

// or returns d, or the default when d is unset.
func (d Digest) or() Digest {
	if d == "" {
		return DigestBLAKE3
	}
	return d
}

// newHash returns a new hash of d (the default when d is unset).
func (d Digest) newHash() hash.Hash {
	if d.or() == DigestSHA256 {
		return sha256.New()
	}
	return blake3x.New()
}

// text writes sum as a digest of d: the name, a colon and the hex.
func (d Digest) text(sum []byte) string { return string(d.or()) + ":" + hex.EncodeToString(sum) }

// Files returns the digest of one file (the file as stored: what b3sum
// or sha256sum gives); of several, the hash of their hashes in order,
// as raw octets (a vector's digest: case.yaml, then the input capture,
// then for exact mode the expected capture). "" when one cannot be read.
func (d Digest) Files(paths ...string) string {
	var sums [][]byte
	for _, p := range paths {
		sum, ok := d.file(p)
		if !ok {
			return ""
		}
		sums = append(sums, sum)
	}
	return d.of(sums...)
}

// file returns the hash of the file at path; false when it cannot be
// read.
func (d Digest) file(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	h := d.newHash()
	if _, err := io.Copy(h, f); err != nil {
		return nil, false
	}
	return h.Sum(nil), true
}

// of is the digest of files whose hashes are sums (see Files).
func (d Digest) of(sums ...[]byte) string {
	if len(sums) == 1 {
		return d.text(sums[0])
	}
	h := d.newHash()
	for _, s := range sums {
		h.Write(s)
	}
	return d.text(h.Sum(nil))
}

// vectorDigest is the vector digest (Files of case.yaml and the input)
// from the input stream's running hash, in the stream's digest: the input
// is read once.
func vectorDigest(casePath string, in *stream) string {
	if in.digest == nil {
		return ""
	}
	cs, ok := in.dig.file(casePath)
	if !ok {
		return ""
	}
	return in.dig.of(cs, in.digest.Sum(nil))
}
