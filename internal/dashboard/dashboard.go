// Package dashboard serves the live page of --dashboard: the HTML report
// of the run (or study) so far, which updates itself each interval
// without reloading. Its figures are drawn by the report's own renderer
// (report.View, html.tmpl and its script): the server keeps the view of
// the latest update and the JSON document it was made from, and a page
// asks for the next update (GET /content?after=SEQ), answered once it is
// there, and puts it in place of the last. Everything the page needs is
// in it (Chart.js included): it makes no request outside its own origin,
// and its Content-Security-Policy forbids any.
package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/live"
	"github.com/txnbench/txnbench/internal/report"
)

// DefaultAddr is where --dashboard alone listens: loopback, a free port.
const DefaultAddr = "127.0.0.1:0"

// finalWait bounds how long Close waits for the open pages to take the
// final figures.
const finalWait = 10 * time.Second

// policy is the pages' Content-Security-Policy: their inline scripts and
// styles, the charts' canvases, and requests to their own origin only.
const policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// CheckAddr checks a --dashboard address without listening: HOST:PORT,
// on a loopback address unless public says the page may be read by
// whoever reaches it.
func CheckAddr(addr string, public bool) error {
	host, _, err := live.ParseAddr(addr)
	if err != nil {
		return err
	}
	if !public && !loopback(host) {
		what := host
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			what = "every interface"
		}
		return fmt.Errorf("%s is not a loopback address: whoever reaches %s could read the page; add --dashboard-public to serve it so, or give 127.0.0.1:PORT", addr, what)
	}
	return nil
}

// loopback reports whether host is a loopback address or localhost.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server serves the dashboard until Close.
type Server struct {
	ln     net.Listener
	host   string // as given ("" for every interface)
	public bool
	srv    *live.Serving

	mu      sync.Mutex
	changed chan struct{} // closed at the next update
	cur     update
	pages   map[int64]*pageState // the pages served, by id
	nextID  int64
	closing bool
}

// update is one state of the page: its parts, as the page holds them,
// and the document they were drawn from.
type update struct {
	seq     int64
	final   bool
	status  string
	view    report.View
	content []byte // view's parts, as /content answers
	doc     []byte // the JSON document of the figures, as /result.json answers
}

// pageState is what one page was last sent.
type pageState struct {
	seen time.Time // its last request
	seq  int64     // the update it holds
}

// Listen checks addr (CheckAddr) and serves the dashboard on it. A busy
// or forbidden address is an error that says what to do.
func Listen(addr string, public bool) (*Server, error) {
	if err := CheckAddr(addr, public); err != nil {
		return nil, err
	}
	ln, host, err := live.ListenTCP(addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, host: host, public: public, changed: make(chan struct{}),
		pages: map[int64]*pageState{}}
	s.cur = update{status: "Waiting for the first interval: the run is starting (a server starting, data loading, a warm-up)."}
	s.cur.content = s.render(s.cur)
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.page)
	mux.HandleFunc("/content", s.content)
	mux.HandleFunc("/result.json", s.result)
	s.srv = live.Serve(ln, s.guard(mux))
	return s, nil
}

// URL is the page's address, with the real port.
func (s *Server) URL() string {
	host, port, _ := net.SplitHostPort(s.ln.Addr().String())
	if s.host != "" {
		host = s.host
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// Public reports whether the page may be served off loopback.
func (s *Server) Public() bool { return s.public }

// Update makes v the page's new figures, drawn from doc (encoded as JSON
// for /result.json), with a status line; final says they are the run's
// last. After a final update, later ones are ignored.
func (s *Server) Update(v report.View, doc any, status string, final bool) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("the dashboard's figures: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur.final {
		return nil
	}
	u := update{seq: s.cur.seq + 1, final: final, status: status, view: v, doc: b}
	u.content = s.render(u)
	s.cur = u
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// render is u's content; a View that cannot be written (it never fails
// for a Result) says so on the page.
func (s *Server) render(u update) []byte {
	var b bytes.Buffer
	if err := u.view.WriteContent(&b, u.live("/content")); err != nil {
		b.Reset()
		report.View{}.WriteContent(&b, report.Live{Seq: u.seq, Final: u.final, Status: "the page could not be drawn: " + err.Error()})
	}
	return b.Bytes()
}

func (u update) live(path string) report.Live {
	return report.Live{ContentPath: path, Seq: u.seq, Final: u.final, Status: u.status}
}

// guard refuses what is not a GET or HEAD and, on loopback, a request
// whose Host is not a loopback name (a page of another site that a DNS
// name pointed at 127.0.0.1 must not read the figures); it sets the
// headers every answer carries.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", policy)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "the dashboard is read-only: GET only", http.StatusMethodNotAllowed)
			return
		}
		if !s.public {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !loopback(strings.Trim(host, "[]")) {
				http.Error(w, "this dashboard answers only at a loopback address (start it with --dashboard-public to serve others)", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// page serves the whole page as of the latest update; it fetches the
// next ones itself.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.nextID++
	id, u := s.nextID, s.cur
	s.pages[id] = &pageState{seen: time.Now(), seq: u.seq}
	s.mu.Unlock()
	var b bytes.Buffer
	if err := u.view.WriteLive(&b, u.live("/content?page="+strconv.FormatInt(id, 10))); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// content answers GET /content?after=SEQ with the first update after
// SEQ, once it is there (or the final one, or the latest when the server
// closes).
func (s *Server) content(w http.ResponseWriter, r *http.Request) {
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if err != nil {
		http.Error(w, "want /content?after=SEQ", http.StatusBadRequest)
		return
	}
	id, _ := strconv.ParseInt(r.URL.Query().Get("page"), 10, 64)
	for {
		s.mu.Lock()
		u, changed, closing := s.cur, s.changed, s.closing
		if p := s.pages[id]; p != nil {
			p.seen = time.Now()
		}
		s.mu.Unlock()
		if u.seq > after || u.final || closing {
			s.mu.Lock()
			if p := s.pages[id]; p != nil {
				p.seq = u.seq
			}
			s.mu.Unlock()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(u.content)
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// result serves the JSON document of the latest update's figures (null
// before the first).
func (s *Server) result(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	u := s.cur
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if u.doc == nil {
		w.Write([]byte("null\n"))
		return
	}
	w.Write(u.doc)
}

// Close stops serving. After a final update it first gives each page
// that asked for one in the last few seconds the time to take it (at
// most finalWait), so a page left open keeps the run's final figures.
func (s *Server) Close() error {
	deadline := time.Now().Add(finalWait)
	for time.Now().Before(deadline) && s.pending() {
		time.Sleep(20 * time.Millisecond)
	}
	s.mu.Lock()
	s.closing = true
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	return s.srv.Close()
}

// pending reports whether, after the final update, a page still open
// (one that asked for an update in the last few seconds) has not taken
// it yet.
func (s *Server) pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cur.final {
		return false
	}
	for _, p := range s.pages {
		if p.seq < s.cur.seq && time.Since(p.seen) < 5*time.Second {
			return true
		}
	}
	return false
}
