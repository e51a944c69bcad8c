package service

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// The service's front door: every request passes front before its
// handler. It refuses a request from a web page of another origin, one
// without the bearer token (when one is set) and a POST whose body is
// not declared JSON, then reads a POST's whole body within the body
// timeout (cut short when the service stops) and gives it to the handler
// from memory. The connections are bounded by limitListener.

// front wraps the service's handler (see above).
func (s *Server) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orig, rc := w, http.NewResponseController(w)
		// The answer, once begun, must be taken within the body timeout
		// too: a client that does not read cannot hold the request.
		w = deadlineWriter{ResponseWriter: w, rc: rc, d: s.lim.BodyTimeout}
		// A body no handler will read is not waited for: the connection
		// closes after the answer instead of being drained.
		unwanted := func() {
			if r.ContentLength != 0 {
				_ = rc.SetReadDeadline(time.Now())
				closeGracefully(orig)
			}
		}
		if r.Method != http.MethodPost {
			unwanted()
		}
		if status, err := s.admit(r); err != nil {
			unwanted()
			if status == 401 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="polluxsim"`)
			}
			writeError(w, status, err)
			return
		}
		if r.Method == http.MethodPost {
			data, status, err := s.readBody(orig, r, rc)
			if err != nil {
				closeGracefully(orig)
				writeError(w, status, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(data))
		}
		next.ServeHTTP(w, r)
	})
}

// closeGracefully makes the server close the connection after the
// answer as it does after a body over its limit: it stops sending, waits
// a moment, and only then closes, so that a client still sending reads
// the answer rather than a reset. (net/http does that for a request whose
// http.MaxBytesReader hit its limit: this reader's limit is 0.)
func closeGracefully(w http.ResponseWriter) {
	_, _ = http.MaxBytesReader(w, io.NopCloser(strings.NewReader("x")), 0).Read(make([]byte, 1))
}

// admit checks a request's origin, token and content type.
func (s *Server) admit(r *http.Request) (int, error) {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, r.Host) {
			return 403, fmt.Errorf("Origin: %q is not this service: it takes no requests from web pages", o)
		}
	}
	if s.token {
		got, ok := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) != 1 || !ok {
			return 401, errors.New("Authorization: missing or wrong bearer token")
		}
	}
	if r.Method == http.MethodPost {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return 415, fmt.Errorf("Content-Type: want application/json, got %q", ct)
		}
	}
	return 0, nil
}

// bearer returns the token of an Authorization header of the Bearer
// scheme, whose name is case-insensitive (RFC 7235, 2.1).
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}

// readBody reads a POST's body, at most MaxBody bytes, within the body
// timeout; the service's stop cuts it short.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, rc *http.ResponseController) ([]byte, int, error) {
	if err := rc.SetReadDeadline(time.Now().Add(s.lim.BodyTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, 500, fmt.Errorf("request body: %v", err)
	}
	if !s.reading(rc, true) {
		return nil, 503, errors.New("the service is stopping")
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.lim.MaxBody))
	stopped := !s.reading(rc, false)
	if err != nil {
		var mb *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mb):
			return nil, 413, fmt.Errorf("request body: larger than the service's limit of %d bytes", s.lim.MaxBody)
		case stopped:
			return nil, 503, errors.New("request body: the service is stopping")
		case errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded):
			return nil, 408, fmt.Errorf("request body: not received within %v, the service's limit", s.lim.BodyTimeout)
		}
		return nil, 400, fmt.Errorf("request body: %v", err)
	}
	// The body is in: a long decision must not time the connection out.
	_ = rc.SetReadDeadline(time.Time{})
	return data, 0, nil
}

// bodies are the requests whose bodies are being read, cut short (their
// read deadline moved to now) when the service stops.
type bodies struct {
	mu      sync.Mutex
	reading map[*http.ResponseController]struct{}
	stopped bool
}

// reading registers (on) or unregisters rc's body read and reports
// whether the service still serves.
func (s *Server) reading(rc *http.ResponseController, on bool) bool {
	b := &s.bodies
	b.mu.Lock()
	defer b.mu.Unlock()
	if on && !b.stopped {
		if b.reading == nil {
			b.reading = map[*http.ResponseController]struct{}{}
		}
		b.reading[rc] = struct{}{}
	} else {
		delete(b.reading, rc)
	}
	return !b.stopped
}

// cutBodies ends every body read in progress and refuses new ones: a
// slow client does not hold the service's stop for its drain time.
func (s *Server) cutBodies() {
	b := &s.bodies
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	for rc := range b.reading {
		_ = rc.SetReadDeadline(time.Now())
	}
}

// deadlineWriter gives an answer the body timeout to be sent from its
// first byte on.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

// WriteHeader implements http.ResponseWriter.
func (w deadlineWriter) WriteHeader(status int) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection.
func (w deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// limitListener accepts at most n connections open at once: beyond them
// Accept waits for one to close (the new ones wait in the kernel's
// backlog), as golang.org/x/net/netutil's LimitListener does.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept implements net.Listener.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, free: func() { <-l.slots }}, nil
}

// Close implements net.Listener.
func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn frees its slot when closed (once).
type limitConn struct {
	net.Conn
	once sync.Once
	free func()
}

// Close implements net.Conn.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
