package policies

import (
	"encoding/json"
	"strings"
	"testing"
)

type boundedOptions struct {
	Size  int     `option:"size" serve:"8" doc:"a size"`
	Scale float64 `option:"scale" serve:"2.5" doc:"a scale"`
	Free  int     `option:"free" doc:"unbounded"`
}

func boundedRegistration() Registration {
	return Registration{Name: "bounded", Defaults: func() any { return &boundedOptions{Size: 4, Scale: 1} }}
}

// TestCheckServeBounds: an option at its serve bound passes, one above it
// is named with its value and bound; options without a bound are free.
func TestCheckServeBounds(t *testing.T) {
	r := boundedRegistration()
	for _, c := range []struct {
		opts, want string
	}{
		{`{}`, ""},
		{`{"size":8,"scale":2.5,"free":1000000}`, ""},
		{`{"size":9}`, "option size is 9, above 8"},
		{`{"scale":2.5000001}`, "option scale is 2.5000001, above 2.5"},
	} {
		set, err := ResolveOptions(r, "", json.RawMessage(c.opts))
		if err != nil {
			t.Fatal(err)
		}
		err = CheckServeBounds(r, set)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.opts, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.opts, err, c.want)
		}
	}
	docs, err := DescribeOptions(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := [3]string{docs[0].ServeMax, docs[1].ServeMax, docs[2].ServeMax}; got != [3]string{"8", "2.5", ""} {
		t.Errorf("ServeMax %q", got)
	}
}

// TestServeTagRefused: a serve bound on a non-number, or one that is not
// a finite number, is a registration error.
func TestServeTagRefused(t *testing.T) {
	type onBool struct {
		B bool `option:"b" serve:"1" doc:"a flag"`
	}
	type notNumber struct {
		N int `option:"n" serve:"many" doc:"a count"`
	}
	type infinite struct {
		N int `option:"n" serve:"+Inf" doc:"a count"`
	}
	for _, v := range []any{&onBool{}, &notNumber{}, &infinite{}} {
		if _, err := optionFields(v); err == nil {
			t.Errorf("%T: accepted", v)
		}
	}
}
