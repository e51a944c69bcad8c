package faults

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Generate draws a fault log from m's rates: the faults its nodes and
// failure domains would have on a cluster whose node n has GPU type
// types[n], up to time until (seconds), from seed: exactly those a run of
// m with that seed draws (NewStream). Replayed events of m are not
// included. A log written from it (WriteLog) replays m's faults, times
// and durations rounded as WriteLog does.
func Generate(m *Model, types []string, until float64, seed uint64) ([]Event, error) {
	c := *m
	c.Events = nil
	s, err := NewStream(&c, types, seed)
	if err != nil {
		return nil, err
	}
	var out []Event
	s.drawn = &out
	for s.Next() <= until {
		s.Pop()
	}
	return out, nil
}

// WriteLog writes events as a fault log ReadFile reads: a header
// time,node,domain,duration, then one row per event with its node or its
// domain, times and durations in whole seconds (a duration at least 1 s).
func WriteLog(w io.Writer, events []Event) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, "time,node,domain,duration")
	for _, ev := range events {
		node, domain := "", ""
		if ev.Node >= 0 {
			node = strconv.Itoa(ev.Node)
		} else {
			domain = strconv.Itoa(ev.Domain)
		}
		fmt.Fprintf(b, "%.0f,%s,%s,%.0f\n", math.Round(ev.Time), node, domain, math.Max(1, math.Round(ev.Duration)))
	}
	return b.Flush()
}
