package traces

import (
	"fmt"
	"io"
)

// maxLineBytes bounds one physical line of a CSV input: a longer one (a
// file without line ends, /dev/zero) is an error naming its line instead
// of a buffer that grows with it.
const maxLineBytes = 1 << 20

// lineLimiter passes r through, failing with a *longLineError once a line
// passes max bytes.
type lineLimiter struct {
	r    io.Reader
	max  int
	line int // the line being read, from 1
	n    int // its bytes so far
}

func newLineLimiter(r io.Reader, max int) *lineLimiter {
	return &lineLimiter{r: r, max: max, line: 1}
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.line, l.n = l.line+1, 0
			continue
		}
		if l.n++; l.n > l.max {
			return i, &longLineError{line: l.line, max: l.max}
		}
	}
	return n, err
}

// longLineError is a line over the limit.
type longLineError struct{ line, max int }

func (e *longLineError) Error() string {
	return fmt.Sprintf("line longer than %d bytes (a file without line ends?)", e.max)
}
