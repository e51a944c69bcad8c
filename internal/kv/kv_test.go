package kv

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestList(t *testing.T) {
	got, err := List(" jobs = 10 ,seed=3,,trace=a=b,", true)
	want := []Pair{{"jobs", "10"}, {"seed", "3"}, {"trace", "a=b"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("List = %v, %v", got, err)
	}
	for _, c := range []struct{ in, msg string }{
		{"jobs", `"jobs" is not key=value`},
		{"=3", `"=3" is not key=value`},
		{"a=1,a=2", "a given twice"},
		{",,", `",," is not key=value`}, // blank items only: no key (it meant the defaults, silently)
		{" , ", `" , " is not key=value`},
	} {
		_, err := List(c.in, true)
		var e *Error
		if !errors.As(err, &e) || err.Error() != c.msg {
			t.Errorf("List(%q): %v, want %s", c.in, err, c.msg)
		}
	}
	if got, err := List("", true); err != nil || len(got) != 0 {
		t.Errorf("an empty list: %v %v, want no items", got, err)
	}
	if got, err := List("a=1,a=2", false); err != nil || len(got) != 2 {
		t.Errorf("a key twice, not unique: %v %v", got, err)
	}
	if got, err := Items([]string{"p=-1", " x = y "}); err != nil || !reflect.DeepEqual(got, []Pair{{"p", "-1"}, {"x", "y"}}) {
		t.Errorf("Items: %v %v", got, err)
	}
}

func FuzzCut(f *testing.F) {
	for _, s := range []string{"a=b", "=", "a", " a = b = c ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Cut(s)
		if err == nil && (p.Key == "" || p.Key != strings.TrimSpace(p.Key) || p.Value != strings.TrimSpace(p.Value)) {
			t.Fatalf("Cut(%q) = %+v", s, p)
		}
	})
}
