package traces

import (
	"fmt"
	"strconv"
	"strings"
)

// SetWindow sets where SampleTrace takes its jobs from, as a --window flag
// spells it:
//
//   - "daily" — the paper's window, 8 hours from 02:00 of every day
//     (DefaultPhillyFilter's shift and length);
//   - "daily:H1-H2" — H1:00 to H2:00 of every day, 0 ≤ H1 < H2 ≤ 24
//     (daily:2-10 is the paper's);
//   - "span:FROM-UNTIL" — one span of the trace, FROM and UNTIL in seconds
//     from its start, or with a unit s, h or d (span:10d-10d8h);
//   - "all" — every job at its own time, no sampling.
//
// The filter's duration and GPU-time limits are kept (the zero filter's
// defaults when unset).
func (o *TraceSampleOptions) SetWindow(spec string) error {
	if o.Filter == (PhillyFilter{}) {
		o.Filter = DefaultPhillyFilter()
	}
	o.All, o.From, o.Until = false, 0, 0
	kind, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	switch {
	case kind == "all" && !hasArg:
		o.All = true
	case kind == "daily" && !hasArg:
		d := DefaultPhillyFilter()
		o.Filter.ShiftHours, o.Filter.WindowHours = d.ShiftHours, d.WindowHours
	case kind == "daily":
		a, b, ok := strings.Cut(arg, "-")
		h1, err1 := strconv.Atoi(a)
		h2, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || h1 < 0 || h1 >= h2 || h2 > 24 || h1 > 23 {
			return fmt.Errorf("window %q: want daily:H1-H2 with 0 ≤ H1 < H2 ≤ 24", spec)
		}
		o.Filter.ShiftHours, o.Filter.WindowHours = h1, h2-h1
	case kind == "span":
		a, b, ok := strings.Cut(arg, "-")
		from, err1 := traceSeconds(a)
		until, err2 := traceSeconds(b)
		if !ok || err1 != nil || err2 != nil || from >= until {
			return fmt.Errorf("window %q: want span:FROM-UNTIL, times in seconds or with a unit s, h, d (span:10d-10d8h), FROM < UNTIL", spec)
		}
		o.From, o.Until = from, until
	default:
		return fmt.Errorf("window %q: want daily, daily:H1-H2, span:FROM-UNTIL or all", spec)
	}
	return nil
}

// traceSeconds reads "3600", "90s", "8h", "10d8h" as seconds.
func traceSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty time")
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if !(v >= 0) || v > maxTraceSeconds {
			return 0, fmt.Errorf("time %q out of range", s)
		}
		return v, nil
	}
	total, num := 0.0, ""
	for _, c := range s {
		unit := map[rune]float64{'s': 1, 'h': 3600, 'd': 86400}[c]
		switch {
		case c >= '0' && c <= '9' || c == '.':
			num += string(c)
		case unit > 0 && num != "":
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, err
			}
			total += v * unit
			num = ""
		default:
			return 0, fmt.Errorf("time %q: want seconds or NUMBER[s|h|d]…", s)
		}
	}
	if num != "" || total > maxTraceSeconds {
		return 0, fmt.Errorf("time %q: want seconds or NUMBER[s|h|d]…", s)
	}
	return total, nil
}
