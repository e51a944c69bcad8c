package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServe starts `polluxsim serve --addr 127.0.0.1:0 args...` and
// returns it with its base URL, once it accepts requests; the rest of its
// standard error goes to stderr, which may be read once ended is closed
// (the process has closed its standard error: read it before cmd.Wait,
// which closes the pipe).
func startServe(t *testing.T, stderr *bytes.Buffer, args ...string) (cmd *exec.Cmd, url string, ended chan struct{}) {
	t.Helper()
	cmd = exec.Command(polluxsimBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	urls := make(chan string, 1)
	ended = make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(pipe)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "polluxsim serve: listening on "); ok && !sent {
				urls <- u
				sent = true
				continue
			}
			stderr.WriteString(line + "\n")
		}
		close(urls)
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatal("serve ended before listening")
		}
		return cmd, u, ended
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not say where it listens")
		return nil, "", nil
	}
}

// TestCLIServeCurl runs docs/serve.md's curl commands, as written but for
// the port, against the binary and gets exactly the documented answer.
func TestCLIServeCurl(t *testing.T) {
	for _, tool := range []string{"curl", "python3", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (CI installs curl): the documented curl example is not run", tool)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "serve.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "decided by Pollux, from the repository's root:")
	if start < 0 {
		t.Fatal("docs/serve.md: no curl example")
	}
	blocks := regexp.MustCompile("(?s)```(sh|json)\n(.*?)```").FindAllStringSubmatch(text[start:], 2)
	if len(blocks) != 2 || blocks[0][1] != "sh" || blocks[1][1] != "json" {
		t.Fatal("docs/serve.md: the curl example is not a sh block followed by a json block")
	}
	var script []string
	for _, line := range strings.Split(blocks[0][2], "\n") {
		if !strings.HasPrefix(line, "polluxsim serve") {
			script = append(script, line)
		}
	}
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(blocks[1][2])); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, url, _ := startServe(t, &stderr)
	sh := strings.ReplaceAll(strings.Join(script, "\n"), "http://127.0.0.1:8080", url)
	c := exec.Command("bash", "-euo", "pipefail", "-c", sh)
	c.Dir = filepath.Join("..", "..", "..")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, sh)
	}
	if got := strings.TrimSpace(string(out)); got != want.String() {
		t.Errorf("the curl example answers\n%s\ndocs/serve.md shows\n%s", got, want.String())
	}
}

// TestCLIServeSignal: SIGTERM stops the service: exit 0, "stopped".
func TestCLIServeSignal(t *testing.T) {
	var stderr bytes.Buffer
	cmd, _, ended := startServe(t, &stderr)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v, stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "polluxsim serve: stopped") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestCLIServeFlags: loopback by default; the token never from a flag
// value; bad flags are one line, exit 1.
func TestCLIServeFlags(t *testing.T) {
	if d := newServeCmd(testExt).Flags().Lookup("addr").DefValue; !strings.HasPrefix(d, "127.0.0.1:") {
		t.Errorf("--addr defaults to %s", d)
	}
	if newServeCmd(testExt).Flags().Lookup("token") != nil {
		t.Error("a --token flag would show the token in ps")
	}
	polluxsimBinary(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--token-file", "t", "--token-env", "X"}, "set one, not both"},
		{[]string{"serve", "--token-file", "no-such-file"}, "token file"},
		{[]string{"serve", "--token-env", "POLLUXSIM_TEST_UNSET_VARIABLE"}, "POLLUXSIM_TEST_UNSET_VARIABLE is not set"},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "--addr 127.0.0.1:99999"},
		{[]string{"serve", "--max-sessions", "0"}, "--max-sessions: want a positive number"},
		{[]string{"serve", "--drain", "0s"}, "--drain: want a positive duration"},
		{[]string{"serve", "--body-timeout", "0s"}, "--body-timeout: want a positive duration"},
		{[]string{"serve", "--max-gpus", "0"}, "--max-gpus: want a positive number"},
		{[]string{"serve", "--max-job-nodes", "-1"}, "--max-job-nodes: want a positive number"},
		{[]string{"serve", "--max-response", "0"}, "--max-response: want a positive number"},
		{[]string{"serve", "--max-conns", "0"}, "--max-conns: want a positive number"},
		{[]string{"serve", "--allow-policy", "externl"}, `--allow-policy: unknown policy "externl" (did you mean external? polluxsim policies lists them)`},
		{[]string{"serve", "--allow-policy", "fifo"}, "--allow-policy fifo: the policy has no effects to allow"},
	} {
		oneLineError(t, runBinary(t, dir, nil, c.args...), c.want)
	}
}

// TestCLIServeAllowPolicy: the binary refuses external by default (403
// naming --allow-policy; the command does not run); with --allow-policy
// external it warns on standard error and runs the caller's command,
// whose failure the caller learns only as such, the reason on standard
// error.
func TestCLIServeAllowPolicy(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "RAN")
	body := `{"policy": "external", "options": {"command": "touch ` + marker + `"}}`
	post := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Post(url+"/v1/sessions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	var stderr bytes.Buffer
	_, url, _ := startServe(t, &stderr)
	if status, out := post(url); status != 403 || !strings.Contains(out, "--allow-policy external") {
		t.Errorf("external by default: %d %s", status, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the caller's command ran")
	}
	var stderr2 bytes.Buffer
	cmd, url2, ended := startServe(t, &stderr2, "--allow-policy", "external")
	status, out := post(url2)
	if status != 400 || !strings.Contains(out, "external could not be started; the service's log says why") {
		t.Errorf("external allowed: %d %s", status, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	_ = cmd.Wait()
	for _, want := range []string{"warning: --allow-policy external: every caller may now use a policy that starts processes",
		"a session of policy external was refused: policy external: command"} {
		if !strings.Contains(stderr2.String(), want) {
			t.Errorf("standard error lacks %q: %s", want, stderr2.String())
		}
	}
}
