package experiments

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/traces"
)

// resolveTrace resolves the trace of a cell whose workloads are sampled
// from one (CellWorkload.Trace): a registered trace name, a window the
// sampler accepts, and no uniform workload. The trace itself is read when
// the sweep makes the workloads, so that a missing file is one line then.
func (c *Cell) resolveTrace(ext *extensions.Extensions) error {
	w := c.Workload
	if w == nil || (w.Trace == "" && w.Window == "") {
		return nil
	}
	switch {
	case w.Trace == "":
		return errors.New("workload: window needs a trace")
	case w.Uniform != nil:
		return errors.New("workload: trace excludes uniform")
	case !ext.Traces().IsTraceName(w.Trace):
		return fmt.Errorf("workload: trace %q is not FORMAT:ARG of a registered trace format (%s)", w.Trace, strings.Join(ext.Traces().Names(), ", "))
	}
	if w.Window != "" {
		var o traces.TraceSampleOptions
		if err := o.SetWindow(w.Window); err != nil {
			return fmt.Errorf("workload: window %q: %w", w.Window, err)
		}
		if o.All {
			return fmt.Errorf("workload: window %q replays the whole trace rather than sampling it: give the trace name as a run's --workload instead", w.Window)
		}
	}
	c.trace, c.window = w.Trace, w.Window
	return nil
}

// Trace is the trace the cell's workloads are sampled from ("" when none)
// and Window its window ("" for the sampler's default, daily).
func (c *Cell) Trace() string  { return c.trace }
func (c *Cell) Window() string { return c.window }

// traceRef names the cell's trace and window in messages.
func (c *Cell) traceRef() string {
	if c.window == "" {
		return c.trace
	}
	return c.trace + " " + c.window
}
