package faults

import (
	"errors"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/traces"
)

// FuzzRead: a fault log is read without panicking into at least one
// event, each with a time, a positive duration and exactly one of a node
// and a domain, or refused with one line naming the file.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"time,node,domain,duration\n100,1,,50\n120,,1,10\n",
		"time,node,duration\n1,0,5\n2,x,5\n",
		"duration,domain,time\n5,0,0\n",
		"time,node,duration\n1e308,0,1e308\n-1,0,1\nNaN,0,1\n",
		"time,node,domain,duration\n1,1,1,1\n\"\n",
		"time,node,domain,duration\n",
		"time,node,domain,duration\n1,0,,5,9\n",
		"time,node,node,duration\n1,0,1,5\n",
		"\ufefftime,node,duration,cause\n1,0,5,power\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		evs, err := Read("f.csv", strings.NewReader(s))
		if err != nil {
			var ie *traces.InputError
			if !errors.As(err, &ie) || ie.File != "f.csv" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line naming the file", err)
			}
			return
		}
		if len(evs) == 0 {
			t.Fatal("no events and no error")
		}
		for i, ev := range evs {
			if !(ev.Time >= 0) || !(ev.Duration > 0) || (ev.Node >= 0) == (ev.Domain >= 0) {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
	})
}
