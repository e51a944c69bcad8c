package service

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// wait is how long a test waits for something that should happen at
// once on an idle machine (generous: the machine may be busy).
const wait = 20 * time.Second

func entered(t *testing.T, tp *testPolicies) string {
	t.Helper()
	select {
	case name := <-tp.entered:
		return name
	case <-time.After(wait):
		t.Fatal("no round began")
		return ""
	}
}

// TestSessionsSerialisedAndConcurrent: two requests to one session are
// decided one after the other (the second begins only when the first is
// released), while rounds of two sessions are in progress together.
func TestSessionsSerialisedAndConcurrent(t *testing.T) {
	_, ts, tp := newTestServer(t, Config{})
	a := openSession(t, ts.URL, `{"policy": "block", "seed": 1}`)
	b := openSession(t, ts.URL, `{"policy": "block", "seed": 2}`)
	var wg sync.WaitGroup
	post := func(id string) {
		defer wg.Done()
		if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", threeJobs(t), ""); status != 200 {
			t.Errorf("%d %s", status, out)
		}
	}
	// Two rounds on session a: only one is let in.
	wg.Add(2)
	go post(a)
	go post(a)
	entered(t, tp)
	select {
	case <-tp.entered:
		t.Fatal("a second round of the same session began while the first was in progress")
	case <-time.After(200 * time.Millisecond):
	}
	// A round of session b begins while a's is held.
	wg.Add(1)
	go post(b)
	if name := entered(t, tp); name != "ss" {
		t.Errorf("round of %q began, want session b's", name)
	}
	if got := tp.inside.Load(); got != 2 {
		t.Errorf("%d rounds in progress, want 2 (one per session)", got)
	}
	tp.release <- struct{}{} // one of a's or b's
	tp.release <- struct{}{}
	entered(t, tp) // a's second round
	tp.release <- struct{}{}
	wg.Wait()
	if m := tp.most.Load(); m != 2 {
		t.Errorf("at most %d rounds at once, want 2", m)
	}
}

// TestDisconnectMidRequest: a client that sends half a body and hangs up,
// or gives up while its round is decided, leaves the service serving and
// the session usable; the abandoned round is decided and its answer
// dropped.
func TestDisconnectMidRequest(t *testing.T) {
	_, ts, tp := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "block", "seed": 1}`)
	fifo := openSession(t, ts.URL, `{"policy": "fifo"}`)
	// Half a body, then the connection closes.
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	body := threeJobs(t)
	_, err = conn.Write([]byte("POST /v1/sessions/" + fifo + "/rounds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body[:len(body)/2]))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// A client that gives up while its round is held.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	entered(t, tp)
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled request succeeded")
	}
	tp.release <- struct{}{} // the abandoned round ends
	// Both sessions serve the next round.
	go func() { entered(t, tp); tp.release <- struct{}{} }()
	if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", body, ""); status != 200 {
		t.Errorf("after the disconnect: %d %s", status, out)
	}
	if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+fifo+"/rounds", body, ""); status != 200 {
		t.Errorf("after the half body: %d %s", status, out)
	}
}

// TestDrain: when Serve's context ends (SIGTERM in polluxsim serve), a
// round in progress is answered, new connections are refused, and Serve
// returns once the round is done.
func TestDrain(t *testing.T) {
	reg, tp := testRegistry(t)
	s := New(Config{Registry: reg})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, wait) }()
	id := openSession(t, url, `{"policy": "block", "seed": 1}`)
	answered := make(chan int, 1)
	go func() {
		status, _ := do(t, "POST", url+"/v1/sessions/"+id+"/rounds", threeJobs(t), "")
		answered <- status
	}()
	entered(t, tp)
	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned with a round in progress: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("a new connection was accepted while draining")
	}
	tp.release <- struct{}{}
	if status := <-answered; status != 200 {
		t.Errorf("the round in progress got %d", status)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("Serve did not return after the drain")
	}
	if s.Sessions() != 0 {
		t.Errorf("%d sessions left after the stop", s.Sessions())
	}
}
