package faults

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/traces"
)

// Event is one row of a fault log: at Time (seconds from the start of the
// run) node Node, or every node of failure domain Domain (Node is then
// -1), goes down for Duration seconds.
type Event struct {
	Time     float64
	Node     int
	Domain   int
	Duration float64
}

// MaxEvents bounds the rows of a fault log.
const MaxEvents = 1_000_000

// ReadFile reads a fault log: CSV with a header naming the columns time
// (seconds), node, domain and duration (seconds), in any order, read as a
// workload's header is (traces.ReadHeader: names case-sensitive, none
// twice), no other column; each row has the header's number of fields and
// a node or a domain (the other empty), and there is at least one row. A
// bad header or row is an error naming the file and line
// (*traces.InputError).
func ReadFile(path string) ([]Event, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fault file: %w", err)
	}
	return Read(path, bytes.NewReader(data))
}

// Read reads a fault log from r, named name in errors (see ReadFile).
func Read(name string, r io.Reader) ([]Event, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	fail := func(line int, col string, err error) error {
		return &traces.InputError{File: name, Line: line, Column: col, Err: err}
	}
	h, _, err := traces.ReadHeader(cr, name, []string{"time", "duration"}, "node", "domain")
	if err != nil {
		return nil, err
	}
	if x := h.Extra(); len(x) > 0 {
		return nil, fail(1, x[0], errors.New("not a column of a fault log (time, node, domain, duration)"))
	}
	_, hasNode := h.Index("node")
	_, hasDomain := h.Index("domain")
	if !hasNode && !hasDomain {
		return nil, fail(1, "node", errors.New("header names neither a node nor a domain column"))
	}
	field := func(rec []string, k string) string {
		if i, ok := h.Index(k); ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []Event
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, fail(line, "", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != h.Width() {
			return nil, fail(line, "", fmt.Errorf("has %d fields, the header has %d", len(rec), h.Width()))
		}
		if len(out) == MaxEvents {
			return nil, fail(line, "", fmt.Errorf("more than %d fault events", MaxEvents))
		}
		ev := Event{Node: -1, Domain: -1}
		for _, c := range []struct {
			k string
			p *float64
		}{{"time", &ev.Time}, {"duration", &ev.Duration}} {
			x, err := strconv.ParseFloat(field(rec, c.k), 64)
			if err != nil || !(x >= 0) || math.IsInf(x, 0) {
				return nil, fail(line, c.k, fmt.Errorf("want a finite non-negative number of seconds, got %q", field(rec, c.k)))
			}
			*c.p = x
		}
		if ev.Duration == 0 {
			return nil, fail(line, "duration", errors.New("a fault must last a positive time"))
		}
		n, d := field(rec, "node"), field(rec, "domain")
		switch {
		case n != "" && d != "":
			return nil, fail(line, "node", errors.New("give a node or a domain, not both"))
		case n != "":
			ev.Node, err = strconv.Atoi(n)
			if err != nil || ev.Node < 0 {
				return nil, fail(line, "node", fmt.Errorf("want a node number from 0, got %q", n))
			}
		case d != "":
			ev.Domain, err = strconv.Atoi(d)
			if err != nil || ev.Domain < 0 {
				return nil, fail(line, "domain", fmt.Errorf("want a domain number from 0, got %q", d))
			}
		default:
			return nil, fail(line, "node", errors.New("no node and no domain"))
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		return nil, fail(2, "", errors.New("no fault events: the file has a header only"))
	}
	return out, nil
}

// checkEvents verifies the replayed events against a cluster of nodes
// nodes (domains of m.DomainSize), naming the file and the event.
func (m *Model) checkEvents(nodes int) error {
	for i, ev := range m.Events {
		switch {
		case ev.Node >= nodes:
			return fmt.Errorf("fault file %s: event %d: node %d, the cluster has nodes 0 to %d", m.File, i+1, ev.Node, nodes-1)
		case ev.Domain >= 0 && m.DomainSize < 1:
			return fmt.Errorf("fault file %s: event %d names domain %d, but no domain size is set (domain=K:RATE)", m.File, i+1, ev.Domain)
		case ev.Domain >= 0 && ev.Domain*m.DomainSize >= nodes:
			return fmt.Errorf("fault file %s: event %d: domain %d, the cluster has %d domains of %d nodes", m.File, i+1, ev.Domain, (nodes+m.DomainSize-1)/m.DomainSize, m.DomainSize)
		}
	}
	return nil
}
