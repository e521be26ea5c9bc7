// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/opensfc/sfc/conformance"
)

// TestDigestKnownAnswers pins each hash to its published test vectors
// (BLAKE3's and FIPS 180-2's for "abc"), so a report's digest is the
// algorithm it names.
func TestDigestKnownAnswers(t *testing.T) {
	dir := t.TempDir()
	empty, abc := filepath.Join(dir, "empty"), filepath.Join(dir, "abc")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(abc, []byte("abc"), 0o644)
	for _, tc := range []struct {
		d    conformance.Digest
		path string
		want string
	}{
		{conformance.DigestBLAKE3, empty, "blake3:af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
		{conformance.DigestBLAKE3, abc, "blake3:6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"},
		{conformance.DigestSHA256, abc, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"", abc, "blake3:6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"}, // unset: the default
		{conformance.DigestBLAKE3, filepath.Join(dir, "none"), ""},
	} {
		if got := tc.d.Files(tc.path); got != tc.want {
			t.Errorf("%q.Files(%s) = %q, want %q", tc.d, filepath.Base(tc.path), got, tc.want)
		}
	}
	for _, s := range []string{"blake3", "sha256"} {
		if d, err := conformance.ParseDigest(s); err != nil || string(d) != s {
			t.Errorf("ParseDigest(%q) = %q, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "md5", "SHA256", "sha-256"} {
		if _, err := conformance.ParseDigest(s); err == nil || !strings.Contains(err.Error(), "want blake3 or sha256") {
			t.Errorf("ParseDigest(%q): want an error naming the choices, got %v", s, err)
		}
	}
}

// TestDigestAgainstTools: a file's digest is what b3sum and sha256sum
// print for it (a vendor checks a report with them). The tools are
// required in CI (.ci/run installs b3sum); elsewhere their absence skips
// loudly.
func TestDigestAgainstTools(t *testing.T) {
	path := filepath.Join(pcaps, "sfc/incast-first-bts", conformance.InputFile)
	for _, tc := range []struct {
		tool string
		d    conformance.Digest
	}{{"b3sum", conformance.DigestBLAKE3}, {"sha256sum", conformance.DigestSHA256}} {
		bin, err := exec.LookPath(tc.tool)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing in CI (.ci/run installs it): %v", tc.tool, err)
			}
			t.Logf("SKIP: %s not installed, its differential check did not run", tc.tool)
			continue
		}
		out, err := exec.Command(bin, path).Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		want := string(tc.d) + ":" + strings.Fields(string(out))[0]
		if got := tc.d.Files(path); got != want {
			t.Errorf("%s: Files gives %s, %s gives %s", tc.d, got, tc.tool, want)
		}
	}
}

// TestDeviceModeDigests: device mode's digests, computed as it streams the
// captures, are the files' (Digest.Files) for each hash; the vector digest
// is the hash of case.yaml's hash followed by the input's, as raw octets.
func TestDeviceModeDigests(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
	cs, in, dev := filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), filepath.Join(vdir, conformance.ExpectedFile)
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b3 := func(b []byte) []byte { h := blake3.Sum256(b); return h[:] }
	s2 := func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }
	for _, tc := range []struct {
		d   conformance.Digest
		sum func([]byte) []byte
	}{{"", b3}, {conformance.DigestBLAKE3, b3}, {conformance.DigestSHA256, s2}} {
		rep, err := conformance.CheckFiles(cs, in, dev, conformance.Options{Digest: tc.d})
		if err != nil || rep.Verdict != conformance.Pass {
			t.Fatalf("%q: the reference's own output: %v %v", tc.d, rep.Verdict, err)
		}
		name := string(tc.d)
		if name == "" {
			name = "blake3"
		}
		wantVec := name + ":" + hex.EncodeToString(tc.sum(append(tc.sum(read(cs)), tc.sum(read(in))...)))
		wantCap := name + ":" + hex.EncodeToString(tc.sum(read(dev)))
		if rep.VectorDigest != wantVec || rep.VectorDigest != tc.d.Files(cs, in) {
			t.Errorf("%q: vector digest %s, want %s", tc.d, rep.VectorDigest, wantVec)
		}
		if rep.CaptureDigest != wantCap || rep.CaptureDigest != tc.d.Files(dev) {
			t.Errorf("%q: capture digest %s, want %s", tc.d, rep.CaptureDigest, wantCap)
		}
	}
}
