package traces

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// recorder is the reader the JSON decoder reads the log through. It keeps
// the bytes from the start of the current record on, so that the line of
// any position the decoder reports (InputOffset) can be found exactly, at
// the cost of one copy of the input.
type recorder struct {
	r     io.Reader
	limit int    // most bytes held at once (0: maxRecordBytes)
	buf   []byte // input from offset base on
	base  int64  // offset of buf[0]
	lines int    // newlines before base
	read  int64  // offset up to which the decoder has been served
	err   error  // the reader's error, once it has one
}

// maxRecordBytes bounds the bytes the recorder holds: a job record of
// cluster_job_log (with the white space before it) is a few KiB, and one
// of 400 MB took 3.5 GB to decode.
const maxRecordBytes = 4 << 20

// errRecordTooLong is the recorder's error when the current record would
// hold more than its limit.
var errRecordTooLong = fmt.Errorf("a job record (with the white space before it) longer than %d MiB: not a cluster_job_log", maxRecordBytes>>20)

// fill reads more input into buf, up to the limit.
func (c *recorder) fill() error {
	if c.err != nil {
		return c.err
	}
	limit := c.limit
	if limit == 0 {
		limit = maxRecordBytes
	}
	if len(c.buf) >= limit {
		return errRecordTooLong
	}
	if cap(c.buf)-len(c.buf) < 4096 {
		nb := make([]byte, len(c.buf), 2*cap(c.buf)+65536)
		copy(nb, c.buf)
		c.buf = nb
	}
	n, err := c.r.Read(c.buf[len(c.buf):min(cap(c.buf), limit)])
	c.buf = c.buf[:len(c.buf)+n]
	if err != nil {
		c.err = err
	}
	if n > 0 {
		return nil
	}
	return c.err
}

// Read serves the decoder from buf, reading more input when needed.
func (c *recorder) Read(p []byte) (int, error) {
	for c.read >= c.base+int64(len(c.buf)) {
		if err := c.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.buf[c.read-c.base:])
	c.read += int64(n)
	return n, nil
}

// peekNonSpace returns the first byte that is not JSON white space (a
// UTF-8 byte-order mark is skipped too) and its offset, without serving it.
func (c *recorder) peekNonSpace() (byte, int64, error) {
	for i := 0; ; i++ {
		for int64(i) >= int64(len(c.buf)) {
			if err := c.fill(); err != nil {
				return 0, 0, err
			}
		}
		switch b := c.buf[i]; {
		case b == ' ' || b == '\t' || b == '\r' || b == '\n':
		case i < 3 && bytes.HasPrefix(c.buf, []byte("\xef\xbb\xbf")):
		default:
			return b, int64(i), nil
		}
	}
}

// skip returns the offset of the first byte at or after off that is not
// one of chars, among the bytes already read.
func (c *recorder) skip(off int64, chars string) int64 {
	if off < c.base {
		off = c.base
	}
	for off < c.base+int64(len(c.buf)) && strings.IndexByte(chars, c.buf[off-c.base]) >= 0 {
		off++
	}
	return off
}

// from returns the bytes read from offset off on.
func (c *recorder) from(off int64) []byte {
	if off < c.base || off > c.base+int64(len(c.buf)) {
		return nil
	}
	return c.buf[off-c.base:]
}

// lineAt returns the 1-based line of offset off and forgets the bytes
// before it that the decoder has already been served: offsets must be
// asked in increasing order.
func (c *recorder) lineAt(off int64) int {
	k := min(max(off-c.base, 0), int64(len(c.buf)))
	drop := min(k, c.read-c.base)
	dropped := bytes.Count(c.buf[:drop], []byte{'\n'})
	line := 1 + c.lines + dropped + bytes.Count(c.buf[drop:k], []byte{'\n'})
	c.lines += dropped
	c.buf = c.buf[drop:]
	c.base += drop
	return line
}
