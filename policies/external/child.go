package external

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultMaxMessage is the largest message, in bytes, read from a policy
// unless Config.MaxMessage (option max_message_mib) says otherwise: a
// longer line is a fault. 64 MiB: a decision for 100,000 jobs on 16 nodes
// is under 5 MiB.
const DefaultMaxMessage = 64 << 20

// stderrLines is how many of the child's last standard-error lines a
// fault's message quotes.
const stderrLines = 5

// maxStderrLine bounds one line of the child's standard error as relayed
// and kept (longer lines are cut).
const maxStderrLine = 4096

// exitWait is how long a fault's message waits for a child that closed
// its output to exit, and for the last of its standard error.
const exitWait = 5 * time.Second

// closeGrace is how long a child has to exit by itself once its standard
// input is closed, before its process group is killed.
const closeGrace = time.Second

// child is one running policy process: its pipes, its standard error's
// last lines, and its exit.
type child struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end; deadlines bound every write
	stdout *os.File // read end; deadlines bound every read
	r      *bufio.Reader
	line   []byte // the message being read
	max    int    // the longest message read

	mu   sync.Mutex
	tail []string // last lines of standard error

	stderrDone chan struct{}
	exited     chan struct{} // closed when the process has been waited for
	waitErr    error

	closeOnce sync.Once
}

// start runs argv with pipes on its standard input and output, its
// standard error relayed to log line by line after prefix, so that
// ending it ends what it started (on Linux under a reaper that contains
// every process below it, elsewhere in a process group of its own; see
// proc_*.go).
func start(argv []string, maxMessage int, log io.Writer, prefix string) (*child, error) {
	cmd, confirm := command(argv)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = confirm(cmd.Start())
	// The child has its own copies of its ends (or none, if it did not
	// start).
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		if cmd.Process != nil { // started, and ended by confirm
			_ = cmd.Wait()
		}
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	c := &child{cmd: cmd, stdin: inW, stdout: outR, r: bufio.NewReaderSize(outR, 64<<10), max: maxMessage,
		stderrDone: make(chan struct{}), exited: make(chan struct{})}
	go c.relay(errR, log, prefix)
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// relay copies the child's standard error to log, each line after prefix,
// keeping the last few.
func (c *child) relay(r *os.File, log io.Writer, prefix string) {
	defer close(c.stderrDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, maxStderrLine)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			text := strings.TrimRight(string(line), "\r\n")
			if errors.Is(err, bufio.ErrBufferFull) {
				text += " …" // cut; the rest follows as lines of its own
			}
			fmt.Fprintf(log, "%s%s\n", prefix, text)
			c.mu.Lock()
			c.tail = append(c.tail, text)
			if len(c.tail) > stderrLines {
				c.tail = c.tail[len(c.tail)-stderrLines:]
			}
			c.mu.Unlock()
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// send writes one message and its line end by deadline.
func (c *child) send(msg []byte, deadline time.Time) error {
	if err := c.stdin.SetWriteDeadline(deadline); err != nil {
		return err
	}
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, err := c.stdin.Write(buf)
	return err
}

// receive reads one line (without its end) by deadline; a line longer
// than MaxMessage is an error. The result is valid until the next call.
func (c *child) receive(deadline time.Time) ([]byte, error) {
	if err := c.stdout.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	c.line = c.line[:0]
	for {
		part, err := c.r.ReadSlice('\n')
		if len(c.line)+len(part) > c.max {
			return nil, fmt.Errorf("%w (%d MiB)", errTooLong, c.max>>20)
		}
		c.line = append(c.line, part...)
		switch {
		case err == nil:
			return bytes.TrimRight(c.line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(c.line) > 0:
			return nil, errPartial
		default:
			return nil, err
		}
	}
}

var (
	errTooLong = errors.New("a message longer than max_message_mib")
	errPartial = errors.New("standard output ended in the middle of a message")
)

// exitStatus waits up to wait for the child to exit and says how it
// ended and what its standard error said last, for a fault's message.
func (c *child) exitStatus(wait time.Duration) string {
	select {
	case <-c.exited:
	case <-time.After(wait):
		return "it is still running" + c.lastWords()
	}
	select {
	case <-c.stderrDone:
	case <-time.After(wait):
	}
	how := "it exited with status 0"
	if c.waitErr != nil {
		how = "it ended: " + c.waitErr.Error()
	}
	return how + c.lastWords()
}

// lastWords quotes the last lines of the child's standard error.
func (c *child) lastWords() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tail) == 0 {
		return "; its standard error was empty"
	}
	return "; its standard error ended: " + strings.Join(c.tail, " | ")
}

// close ends the child: its standard input is closed so that it can exit
// by itself within closeGrace, then it and every process it started are
// ended (endTree; its process group killed if that takes over
// closeGrace) and the process waited for. Safe to call more than once
// and from another goroutine than the one talking to the child.
func (c *child) close() {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(closeGrace):
		}
		endTree(c.cmd)
		select {
		case <-c.exited:
		case <-time.After(closeGrace):
			killGroup(c.cmd)
			<-c.exited
		}
		select { // what it wrote last is relayed
		case <-c.stderrDone:
		case <-time.After(closeGrace):
		}
		c.stdout.Close()
	})
}

// kill ends the child and every process it started at once (after a
// fault).
func (c *child) kill() {
	endTree(c.cmd)
}
