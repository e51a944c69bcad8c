package app

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports how far a long command has come: a progress bar with
// ETA when stderr is a terminal, otherwise a plain line at every tenth of
// the way (progressbar would write escape codes into logs).
type progress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	desc  string
	total int
	done  int
	next  int // next count at which a plain line is printed
	start time.Time
}

func newProgress(w io.Writer, total int, desc string, quiet bool) *progress {
	p := &progress{w: w, desc: desc, total: total, start: time.Now()}
	if quiet || total <= 0 {
		p.w = nil
		return p
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
		return p
	}
	p.next = max(1, total/10)
	return p
}

// set records that n of total items are done.
func (p *progress) set(n int) {
	if n <= p.done {
		return
	}
	p.done = n
	switch {
	case p.bar != nil:
		_ = p.bar.Set(n)
	case p.w != nil && (n >= p.next || n == p.total):
		el := time.Since(p.start)
		if el < 2*time.Second { // short runs need no progress lines
			break
		}
		eta := time.Duration(float64(el) / float64(n) * float64(p.total-n))
		fmt.Fprintf(p.w, "%s: %d/%d (%.0f%%) elapsed %s, eta %s\n", p.desc, n, p.total,
			100*float64(n)/float64(p.total), el.Round(time.Second), eta.Round(time.Second))
		for p.next <= n {
			p.next += max(1, p.total/10)
		}
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
