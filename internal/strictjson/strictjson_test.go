package strictjson

import (
	"encoding/json"
	"strings"
	"testing"
)

type inner struct {
	X float64 `json:"x"`
}

type outer struct {
	Name  string            `json:"name"`
	Cells []inner           `json:"cells"`
	Opts  map[string]any    `json:"options,omitempty"`
	Raw   json.RawMessage   `json:"raw"`
	ByKey map[string]inner  `json:"by_key"`
	Skip  string            `json:"-"`
	Plain map[string]string `json:"plain"`
}

// Keys must be exact and unique at every depth; a BOM is skipped; data
// after the value is refused. encoding/json alone accepts "Cells" and the
// duplicates.
func TestDecode(t *testing.T) {
	var ok outer
	if err := Decode([]byte("\xef\xbb\xbf"+`{"name":"a","cells":[{"x":1}],"options":{"A":1},"raw":{"Any":1},"by_key":{"k":{"x":2}}}`), &ok); err != nil || ok.Name != "a" || ok.ByKey["k"].X != 2 {
		t.Fatalf("valid input: %v %+v", err, ok)
	}
	for _, c := range []struct{ in, want string }{
		{`{"Cells":[]}`, `unknown field "Cells" (keys are case-sensitive: "cells")`},
		{`{"name":"a","name":"b"}`, `duplicate field "name"`},
		{`{"cells":[{"x":1},{"x":1,"x":2}]}`, `cells[1]: duplicate field "x"`},
		{`{"cells":[{"X":1}]}`, `cells[0]: unknown field "X" (keys are case-sensitive: "x")`},
		{`{"by_key":{"k":{"y":1}}}`, `by_key.k: unknown field "y"`},
		{`{"options":{"a":1,"a":2}}`, `options: duplicate field "a"`},
		{`{"raw":{"a":1,"a":2}}`, `raw: duplicate field "a"`},
		{`{"nope":1}`, `unknown field "nope"`},
		{`{"name":"a"} {}`, "unexpected data after the JSON value"},
		{`{"name":`, "unexpected EOF"},
	} {
		var v outer
		if err := Decode([]byte(c.in), &v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	var v outer
	if err := json.Unmarshal([]byte(`{"Cells":[{"X":1}]}`), &v); err != nil || len(v.Cells) != 1 {
		t.Errorf("encoding/json no longer matches keys case-insensitively (%v): this package may be simpler now", err)
	}
}
