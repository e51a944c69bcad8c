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

type typed struct {
	Jobs []struct {
		Unit  int            `json:"node_unit"`
		Small int8           `json:"small"`
		Count uint32         `json:"count"`
		Rate  float64        `json:"rate"`
		Name  string         `json:"name"`
		On    *bool          `json:"on"`
		List  []int          `json:"list"`
		By    map[string]int `json:"by"`
	} `json:"jobs"`
}

// A value of the wrong type is one line naming its path, indices
// included, what the field takes and what was there, not encoding/json's
// "cannot unmarshal ... into Go struct field"; leading space and a BOM do
// not shift the path.
func TestDecodeTypeErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"jobs":[{},{},{},{"node_unit":"8"}]}`, `jobs[3].node_unit: want an integer, got a string`},
		{"\xef\xbb\xbf \n" + `{"jobs":[{},{"node_unit":"8"}]}`, `jobs[1].node_unit: want an integer, got a string`},
		{`{"jobs":[{"node_unit":1.5}]}`, `jobs[0].node_unit: want an integer, got 1.5`},
		{`{"jobs":[{"node_unit":1e30}]}`, `jobs[0].node_unit: want an integer in [-9223372036854775808, 9223372036854775807], got 1e30`},
		{`{"jobs":[{"small":200}]}`, `jobs[0].small: want an integer in [-128, 127], got 200`},
		{`{"jobs":[{"count":-1}]}`, `jobs[0].count: want an integer in [0, 4294967295], got -1`},
		{`{"jobs":[{"rate":1e400}]}`, `jobs[0].rate: want a number of magnitude at most 1.798e+308, got 1e400`},
		{`{"jobs":[{"name":3}]}`, `jobs[0].name: want a string, got a number`},
		{`{"jobs":[{"on":"yes"}]}`, `jobs[0].on: want true or false, got a string`},
		{`{"jobs":[{"rate":true}]}`, `jobs[0].rate: want a number, got a boolean`},
		{`{"jobs":[{"list":{"a":1}}]}`, `jobs[0].list: want an array, got an object`},
		{`{"jobs":[{"list":[1,2,"x"]}]}`, `jobs[0].list[2]: want an integer, got a string`},
		{`{"jobs":[{"by":{"a":1,"b":[]}}]}`, `jobs[0].by.b: want an integer, got an array`},
		{`{"jobs":{"a":1}}`, `jobs: want an array, got an object`},
		{`{"jobs":[3]}`, `jobs[0]: want an object, got a number`},
		{`[1]`, `want an object, got an array`},
	} {
		var v typed
		err := Decode([]byte(c.in), &v)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}
