//go:build unix

package service

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/procfs"
	"github.com/polluxsim/polluxsim/internal/proctest"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// scriptPolicy writes a policy script that records its process id in a
// file, runs before, holds the handshake and then runs then (PIDS in
// either is the file), and returns the session request that runs it and
// the file of process ids.
func scriptPolicy(t *testing.T, before, then string) (body, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "pids")
	script := filepath.Join(dir, "deaf.sh")
	src := fmt.Sprintf("read -r hello\necho $$ >> PIDS\n%s\necho '{\"type\":\"ready\",\"protocol\":%d,\"name\":\"script\"}'\n%s\n",
		before, protocol.Version, then)
	src = strings.ReplaceAll(src, "PIDS", "'"+pidFile+"'")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"policy": "external", "options": {"command": "sh '%s'"}}`, script), pidFile
}

// deafPolicy is a scriptPolicy that sleeps after its handshake, reading
// nothing more: only a kill ends it, not the end of its input.
func deafPolicy(t *testing.T) (body, pidFile string) { return scriptPolicy(t, "", "exec sleep 1000") }

// newExternalServer serves cfg with the test registry, external among
// its policies.
func newExternalServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	reg, _ := testRegistry(t) // external is registered by its package
	cfg.Registry = reg
	cfg.Allow = append(cfg.Allow, "external")
	s := New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, 5*time.Second) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s, "http://" + ln.Addr().String()
}

// lastPid is the last process id in file.
func lastPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		t.Fatalf("%s: no process id", file)
	}
	var pid int
	if _, err := fmt.Sscan(f[len(f)-1], &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestClosedSessionEndsPolicy: an external session's child process ends
// when the session is deleted, expires, is refused at creation, or the
// service stops, even a child that no longer reads its input.
func TestClosedSessionEndsPolicy(t *testing.T) {
	t.Run("delete", func(t *testing.T) {
		_, url := newExternalServer(t, Config{})
		body, pids := deafPolicy(t)
		id := openSession(t, url, body)
		pid := lastPid(t, pids)
		if !proctest.Running(pid) {
			t.Fatalf("policy process %d not running while its session is open", pid)
		}
		if status, out := do(t, "DELETE", url+"/v1/sessions/"+id, "", ""); status != 204 {
			t.Fatalf("DELETE: %d %s", status, out)
		}
		proctest.WaitGone(t, []int{pid}, 5*time.Second)
	})
	t.Run("delete, a process that left the session", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("only Linux contains processes that call setsid (docs/protocol.md)")
		}
		if _, err := exec.LookPath("setsid"); err != nil {
			t.Skip("setsid(1) not found")
		}
		_, url := newExternalServer(t, Config{})
		body, pids := scriptPolicy(t, "setsid sleep 1000 </dev/null >/dev/null 2>&1 &\necho $! >> PIDS", "exec sleep 1000")
		id := openSession(t, url, body)
		escaped := lastPid(t, pids)
		if !proctest.Running(escaped) {
			t.Fatalf("process %d not running while its session is open", escaped)
		}
		if status, out := do(t, "DELETE", url+"/v1/sessions/"+id, "", ""); status != 204 {
			t.Fatalf("DELETE: %d %s", status, out)
		}
		proctest.WaitGone(t, []int{escaped}, 5*time.Second)
	})
	t.Run("expire", func(t *testing.T) {
		s, url := newExternalServer(t, Config{Limits: Limits{IdleTimeout: time.Hour}})
		body, pids := deafPolicy(t)
		openSession(t, url, body)
		pid := lastPid(t, pids)
		if n := s.Expire(time.Now().Add(2 * time.Hour)); n != 1 {
			t.Fatalf("expired %d sessions, want 1", n)
		}
		proctest.WaitGone(t, []int{pid}, 5*time.Second)
	})
	t.Run("refused", func(t *testing.T) {
		_, url := newExternalServer(t, Config{Limits: Limits{MaxSessions: 1}})
		body, pids := deafPolicy(t)
		openSession(t, url, body)
		first := lastPid(t, pids)
		status, out := do(t, "POST", url+"/v1/sessions", body, "")
		if status != 429 {
			t.Fatalf("a session over the limit: %d %s", status, out)
		}
		if second := lastPid(t, pids); second != first {
			proctest.WaitGone(t, []int{second}, 5*time.Second)
		}
		if !proctest.Running(first) {
			t.Errorf("the open session's policy process %d ended", first)
		}
	})
	t.Run("shutdown", func(t *testing.T) {
		reg, _ := testRegistry(t)
		s := New(Config{Registry: reg, Allow: []string{"external"}})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, ln, 5*time.Second) }()
		body, pids := deafPolicy(t)
		openSession(t, "http://"+ln.Addr().String(), body)
		pid := lastPid(t, pids)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if proctest.Running(pid) {
			t.Errorf("policy process %d still running after Serve returned", pid)
		}
		proctest.WaitGone(t, []int{pid}, 5*time.Second)
	})
}

// TestSessionChurnKeepsProcessesFlat: creating and deleting external
// sessions over and over leaves the processes below the service as they
// were.
func TestSessionChurnKeepsProcessesFlat(t *testing.T) {
	if !procfs.Mounted() {
		t.Skip("no /proc to count processes in")
	}
	_, url := newExternalServer(t, Config{})
	body, _ := scriptPolicy(t, "", "exec cat >/dev/null") // ends at the end of its input
	before := len(procfs.Descendants(os.Getpid()))
	const churn = 20
	for range churn {
		id := openSession(t, url, body)
		if status, out := do(t, "DELETE", url+"/v1/sessions/"+id, "", ""); status != 204 {
			t.Fatalf("DELETE: %d %s", status, out)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		after := procfs.Descendants(os.Getpid())
		if len(after) <= before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes below the service before %d sessions were created and deleted, %d after: %v", before, churn, len(after), after)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
