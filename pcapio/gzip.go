// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bufio"
	"compress/gzip"
	"io"
)

// gzipStream reads the members of a gzip stream one after the other, as
// gzip.Reader in its multistream mode does, but returns all of a member's
// data before it reads any further. gzip.Reader, at the end of a member,
// reads the next member's header inside the same Read that decoded the
// member's last octets, and returns those octets only when that header
// has come: from a pipe whose writer paused after a whole member (gzip -c
// capture | ..., left open), the last frames, often all of them, were
// held until the writer went on or closed it. Here a member's end is
// returned as data, and only the Read after it looks for another member.
type gzipStream struct {
	src *bufio.Reader
	z   *gzip.Reader
	err error // the error that ended the stream, returned again after
}

// newGzipStream reads the first member's header from src.
func newGzipStream(src *bufio.Reader) (*gzipStream, error) {
	z, err := gzip.NewReader(src)
	if err != nil {
		return nil, err
	}
	z.Multistream(false)
	return &gzipStream{src: src, z: z}, nil
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for g.err == nil {
		n, err := g.z.Read(p)
		if err != io.EOF {
			return n, err
		}
		if n > 0 {
			return n, nil // the member's end; the next Read looks further
		}
		// The member ended (its trailer checked) and its data was
		// returned: another member follows unless the source ends here.
		// What gzip.Reader's multistream mode reports of what follows is
		// reported the same: io.EOF at the end, gzip.ErrHeader for
		// octets that are not a member, io.ErrUnexpectedEOF for a header
		// cut short.
		if _, err := g.src.Peek(1); err != nil {
			g.err = err
			break
		}
		if err := g.z.Reset(g.src); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			g.err = err
			break
		}
		g.z.Multistream(false)
	}
	return 0, g.err
}
