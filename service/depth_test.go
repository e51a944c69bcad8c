package service

import (
	"runtime"
	"strings"
	"testing"
)

// TestDeepBodies: a body nested deeper than the strict reader's bound
// gets a 400 naming the place and the bound, costs the server little
// memory, and leaves it answering: 60,000 "[" to /v1/sessions (a 60 KB
// body took the server to 24 GB and killed it) and 60,000 `{"a":` in a
// round's nodes. The shallow case comes first, so that a server without
// the bound fails it before the deep ones exhaust memory.
func TestDeepBodies(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "fifo", "seed": 1}`)
	for _, c := range []struct{ name, url, body, want string }{
		{"65 levels", "/v1/sessions", strings.Repeat("[", 65), "line 1, column 65: arrays and objects nested deeper than 64 levels"},
		{"60000 [", "/v1/sessions", strings.Repeat("[", 60000), "line 1, column 65: arrays and objects nested deeper than 64 levels"},
		{"60000 objects in a round", "/v1/sessions/" + id + "/rounds", `{"time": 0, "nodes": ` + strings.Repeat(`{"a":`, 60000),
			"line 1, column 337: arrays and objects nested deeper than 64 levels"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		status, out := do(t, "POST", ts.URL+c.url, c.body, "")
		runtime.ReadMemStats(&after)
		if status != 400 {
			t.Fatalf("%s: status %d (%s)", c.name, status, out)
		}
		if oneLineError(t, out, c.want); t.Failed() {
			t.FailNow()
		}
		if used := after.TotalAlloc - before.TotalAlloc; used > 32<<20 {
			t.Errorf("%s: %d bytes allocated for a body of %d", c.name, used, len(c.body))
		}
		if status, out := do(t, "GET", ts.URL+"/v1/healthz", "", ""); status != 200 {
			t.Fatalf("%s: then healthz %d %s", c.name, status, out)
		}
	}
}
