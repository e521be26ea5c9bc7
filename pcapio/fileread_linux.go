// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64 || mips64 || mips64le)

package pcapio

import (
	"io"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileReader reads a regular file, asking first for what the page cache
// holds: preadv2 with RWF_NOWAIT, which never waits for the disk, made as
// a raw system call. A raw call does not tell the scheduler it entered the
// kernel, so the scheduler neither hands the goroutine's P to another
// thread during a read of 128 KiB (~20-60 µs, longer than sysmon's 20 µs)
// nor has to win it back after. With the parallel read of sfcdump that
// hand-off cost more than the read: 6,500 futex calls and 7,800 sysmon
// sleeps for 4,600 reads of a 600 MB capture, against 1,700 and 2,900 so.
// A read the cache cannot serve (EAGAIN), or a kernel or file system
// without RWF_NOWAIT, goes through os.File.Read, which may block as usual.
// Both read at the file's own offset (preadv2 at offset -1).
type fileReader struct {
	f      *os.File
	fd     uintptr
	nowait bool // preadv2 with RWF_NOWAIT is still worth trying
	// atFailed says ReadAt's preadv2 with RWF_NOWAIT failed otherwise
	// than for want of cached pages: ReadAt then uses os.File.ReadAt.
	// (Atomic: ReadAt runs in several goroutines at once.)
	atFailed atomic.Bool
}

// newFileReader returns f, or for a regular file a fileReader reading it.
func newFileReader(f *os.File, regular bool) io.Reader {
	if !regular {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	r := &fileReader{f: f, nowait: true}
	if err := rc.Control(func(fd uintptr) { r.fd = fd }); err != nil {
		return f
	}
	return r
}

func (r *fileReader) Read(p []byte) (int, error) {
	if r.nowait && len(p) > 0 {
		iov := unix.Iovec{Base: &p[0]}
		iov.SetLen(len(p))
		for {
			// Offset -1: the file's offset, which os.File.Read uses too.
			n, _, e := unix.RawSyscall6(unix.SYS_PREADV2, r.fd, uintptr(unsafe.Pointer(&iov)), 1,
				^uintptr(0), ^uintptr(0), unix.RWF_NOWAIT)
			switch e {
			case 0:
				if n == 0 {
					return 0, io.EOF
				}
				return int(n), nil
			case unix.EINTR:
				continue
			case unix.EAGAIN: // not all in the page cache: wait for it below
			default:
				// ENOSYS, EOPNOTSUPP, EINVAL (flags unknown to the kernel)
				// or a real error, which os.File.Read reports in its terms.
				r.nowait = false
			}
			break
		}
	}
	return r.f.Read(p)
}

// ReadAt reads len(p) octets at offset off (the file's offset does not
// move), as preadv2 with RWF_NOWAIT while the page cache holds them and
// through os.File.ReadAt for the rest. Calls may run at the same time. It
// returns fewer octets only with an error, io.EOF at the file's end.
func (r *fileReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && !r.atFailed.Load() {
		iov := unix.Iovec{Base: &p[n]}
		iov.SetLen(len(p) - n)
		m, _, e := unix.RawSyscall6(unix.SYS_PREADV2, r.fd, uintptr(unsafe.Pointer(&iov)), 1,
			uintptr(off+int64(n)), 0, unix.RWF_NOWAIT)
		if e == unix.EINTR {
			continue
		}
		if e == unix.EAGAIN {
			break
		}
		if e != 0 {
			r.atFailed.Store(true)
			break
		}
		if m == 0 {
			return n, io.EOF
		}
		n += int(m)
	}
	if n == len(p) {
		return n, nil
	}
	m, err := r.f.ReadAt(p[n:], off+int64(n))
	return n + m, err
}
