package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// secondsValue is a flag holding a duration in seconds. It accepts a plain
// number of seconds ("60", "0.5") or a Go duration ("60s", "2m", "1m30s").
type secondsValue struct {
	v        *float64
	positive bool // zero not allowed
}

func newSeconds(p *float64, def float64, positive bool) *secondsValue {
	*p = def
	return &secondsValue{v: p, positive: positive}
}

func (s *secondsValue) String() string {
	if s.v == nil {
		return ""
	}
	return strconv.FormatFloat(*s.v, 'g', -1, 64) + "s"
}

func (s *secondsValue) Set(text string) error {
	x, err := parseSeconds(text)
	if err != nil {
		return err
	}
	if x < 0 || (s.positive && x == 0) {
		if s.positive {
			return fmt.Errorf("must be positive, got %q", text)
		}
		return fmt.Errorf("must not be negative, got %q", text)
	}
	*s.v = x
	return nil
}

func (s *secondsValue) Type() string { return "duration" }

// parseSeconds reads "60", "60s", "2m", "1h30m" as seconds.
func parseSeconds(text string) (float64, error) {
	t := strings.TrimSpace(text)
	if x, err := strconv.ParseFloat(t, 64); err == nil {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("not a finite duration: %q", text)
		}
		return x, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("not a duration (use seconds or e.g. 60s, 2m): %q", text)
	}
	return d.Seconds(), nil
}
