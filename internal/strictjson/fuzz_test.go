package strictjson_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/strictjson"
	"github.com/polluxsim/polluxsim/policies/protocol"
	"github.com/polluxsim/polluxsim/service"
)

// reader is one of the tree's strict JSON readers, as its caller calls it.
type reader struct {
	name string
	read func([]byte) error
	core bool // strictjson itself: its cost is bounded on every input
}

// readers are every caller of strictjson: the experiment spec (sweep
// --experiment), the regress baseline, the service's three bodies and the
// external policy's messages, with Decode itself. (CheckKeys reads the
// first value only, leaving what follows to its caller's decoder.)
var readers = []reader{
	{"Decode", func(b []byte) error { var v any; return strictjson.Decode(b, &v) }, true},
	{"experiment spec", func(b []byte) error {
		_, err := experiments.ParseExperiment(b, "e.json", intree.Extensions())
		return err
	}, false},
	{"baseline", func(b []byte) error { return strictjson.Decode(b, new(sweep.Baseline)) }, false},
	{"session body", func(b []byte) error { return strictjson.Decode(b, new(service.SessionRequest)) }, false},
	{"round body", func(b []byte) error { return strictjson.Decode(b, new(service.RoundRequest)) }, false},
	{"oracle body", func(b []byte) error { return strictjson.Decode(b, new(service.OracleAnswers)) }, false},
	{"protocol message", func(b []byte) error { _, err := protocol.Decode(b); return err }, false},
}

// depth is the deepest nesting of arrays and objects in data, outside
// strings.
func depth(data []byte) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// duplicateKeys says whether the valid JSON data has an object with a
// key twice (keys as encoding/json decodes them). It is the test's own
// reading, token by token, to check the walker's against.
func duplicateKeys(data []byte) bool {
	type level struct {
		keys map[string]bool // nil: an array
		key  bool            // an object's next token is a key or '}'
	}
	var stack []*level
	done := func() { // a value ended
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].key = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		n := len(stack)
		if n > 0 && stack[n-1].key {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				done()
				continue
			}
			k, _ := tok.(string)
			if stack[n-1].keys[k] {
				return true
			}
			stack[n-1].keys[k], stack[n-1].key = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{keys: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &level{})
		case json.Delim(']'):
			stack = stack[:n-1]
			done()
		default:
			done()
		}
	}
}

// allocated is the bytes f allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FuzzNesting feeds every strict JSON reader prefix + unit × n + suffix
// (seeded with the nestings a probe used: 60,000 "[", 40,000 `{"a":`,
// deep values inside each reader's own fields). No reader panics; each
// refuses nesting deeper than strictjson.MaxDepth; what it allocates on
// such an input, and what strictjson allocates on any input, is linear
// in the input's size (at most 256 bytes a byte, plus 1 MiB). On valid
// JSON, CheckKeys refuses exactly the inputs that nest too deep or
// repeat a key, each with its own error, and Decode with the same one. No
// reader reports a value of the wrong type in encoding/json's words
// ("cannot unmarshal ... into Go struct field"): Decode names its path.
func FuzzNesting(f *testing.F) {
	f.Add("", "[", uint16(60000), "")
	f.Add("", `{"a":`, uint16(40000), "")
	f.Add("", `[{"a":`, uint16(65), "1"+strings.Repeat("}]", 65))
	f.Add("", "[", uint16(64), strings.Repeat("]", 64))
	f.Add("", "[", uint16(65), strings.Repeat("]", 65))
	f.Add(`{"a": 1, "a": `, "[", uint16(100), strings.Repeat("]", 100)+"}")
	f.Add(`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "fifo", "options": {"x": `, "[", uint16(70), strings.Repeat("]", 70)+"}}]}")
	f.Add(`{"policy": "pollux", "seed": 1, "options": `, `{"a":`, uint16(70), "1"+strings.Repeat("}", 71))
	f.Add(`{"time": 0, "nodes": [{"name": "a", "gpus": 4}], "jobs": `, "[", uint16(10000), "")
	f.Add(`{"answers": `, `[`, uint16(65), strings.Repeat("]", 65)+"}")
	f.Add(`{"type": "decision", "round": 1, "alloc": `, "[", uint16(70), strings.Repeat("]", 70)+"}")
	f.Add(`{"type": "decision", "round": 1, "alloc": [[1]], "alloc": `, "[", uint16(2), "]]}")
	f.Add(`{"experiment": "x", "cells": `, `[{"cell": `, uint16(65), "")
	f.Add(`["\"[[[", {"k\u0061": 1, "ka": 2}, 1.5e3, -0, true, null, `, "[", uint16(3), "]]]]")
	f.Add(`{"time": 0, "nodes": [{"name": "a", "gpus": `, `"`, uint16(2), `}], "jobs": [{"node_unit": 1.5}]}`)
	f.Add(`{"time": 0, "nodes": [], "jobs": [{}, {"hints": {"localBszBounds": [1, `, `[`, uint16(3), `]]]}}]}`)
	f.Fuzz(func(t *testing.T, prefix, unit string, n uint16, suffix string) {
		if len(prefix)+len(unit)*int(n)+len(suffix) > 1<<20 {
			return
		}
		data := []byte(prefix + strings.Repeat(unit, int(n)) + suffix)
		deep := depth(data) > strictjson.MaxDepth
		for _, r := range readers {
			var err error
			used := allocated(func() { err = r.read(data) })
			if deep && err == nil {
				t.Fatalf("%s: %d levels deep, accepted", r.name, depth(data))
			}
			if err != nil && strings.Contains(err.Error(), "cannot unmarshal") {
				t.Fatalf("%s: a type error in encoding/json's words: %v", r.name, err)
			}
			if (deep || r.core) && used > 256*uint64(len(data))+1<<20 {
				t.Fatalf("%s: %d bytes in, %d allocated", r.name, len(data), used)
			}
		}
		var err error
		if used := allocated(func() { err = strictjson.CheckKeys(data, nil) }); used > 256*uint64(len(data))+1<<20 {
			t.Fatalf("CheckKeys: %d bytes in, %d allocated", len(data), used)
		}
		if !json.Valid(data) {
			return
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		switch {
		case duplicateKeys(data):
			if !strings.Contains(msg, "duplicate field") && !strings.Contains(msg, "nested deeper than") {
				t.Fatalf("a key twice: %v", err)
			}
		case deep:
			if !strings.Contains(msg, "arrays and objects nested deeper than 64 levels") {
				t.Fatalf("%d levels: %v", depth(data), err)
			}
		case err != nil:
			t.Fatalf("valid JSON %d levels deep, no key twice: %v", depth(data), err)
		}
		var v any
		if derr := strictjson.Decode(data, &v); err != nil && (derr == nil || derr.Error() != msg) {
			t.Fatalf("CheckKeys %v, Decode %v", err, derr)
		}
	})
}
