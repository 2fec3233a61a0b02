package till

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// seen is one request as the fault server received it.
type seen struct {
	Method, URL string
	Header      http.Header
	Body        string
}

// answer is what the fault server does with a request: a status (with body and headers), a reset
// (the connection is closed before any answer) or a hang (no answer until the client gives up).
type answer struct {
	status int
	body   string
	header map[string]string
	reset  bool
	hang   bool
}

type faultServer struct {
	URL  string
	mu   sync.Mutex
	reqs []seen
	got  chan seen // every request, as it arrives
}

// newFaultServer answers each request (n counts from 1) as script says, on a loopback port.
func newFaultServer(t *testing.T, script func(s seen, n int) answer) *faultServer {
	t.Helper()
	fs := &faultServer{got: make(chan seen, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := seen{Method: r.Method, URL: r.URL.RequestURI(), Header: r.Header.Clone(), Body: string(body)}
		fs.mu.Lock()
		fs.reqs = append(fs.reqs, s)
		n := len(fs.reqs)
		fs.mu.Unlock()
		select {
		case fs.got <- s:
		default: // nobody is watching
		}
		a := script(s, n)
		switch {
		case a.reset:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		case a.hang:
			<-r.Context().Done()
			return
		}
		// No keep-alive: Go's transport silently resends a request whose reused connection
		// failed, which would hide the client's own retries from the counts.
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_"+itoa(n))
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	fs.URL = srv.URL
	return fs
}

func (fs *faultServer) seen() []seen {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]seen(nil), fs.reqs...)
}

func (fs *faultServer) keys() map[string]int {
	keys := map[string]int{}
	for _, s := range fs.seen() {
		keys[s.Header.Get("Idempotency-Key")]++
	}
	return keys
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
