package dashboard

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/report"
)

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		public bool
		want   string // in the error; "" for none
	}{
		{"127.0.0.1:0", false, ""},
		{"localhost:8080", false, ""},
		{"[::1]:0", false, ""},
		{"0.0.0.0:0", false, "not a loopback address: whoever reaches every interface could read the page; add --dashboard-public"},
		{":8080", false, "whoever reaches every interface"},
		{"192.0.2.1:80", false, "not a loopback address"},
		{"0.0.0.0:0", true, ""},
		{"nonsense", false, "want HOST:PORT"},
		{"127.0.0.1:99999", false, "not a number from 0 to 65535"},
	} {
		err := CheckAddr(c.addr, c.public)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckAddr(%q, %v) = %v, want %q", c.addr, c.public, err, c.want)
		}
	}
}

func get(t *testing.T, url, host string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func listen(t *testing.T) *Server {
	t.Helper()
	s, err := Listen(DefaultAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestOnlyItsOwnOrigin: the page forbids requests elsewhere (its
// Content-Security-Policy), and on loopback a request naming another host
// (a DNS name pointed at 127.0.0.1 by another site) is refused, as is
// anything but GET.
func TestOnlyItsOwnOrigin(t *testing.T) {
	s := listen(t)
	resp, body := get(t, s.URL(), "")
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "connect-src 'self'") || !strings.Contains(body, `id="txnbench-live"`) {
		t.Errorf("GET /: %s, CSP %q", resp.Status, resp.Header.Get("Content-Security-Policy"))
	}
	if resp, _ := get(t, s.URL(), "rebound.example:80"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET / with Host rebound.example: %s, want 403", resp.Status)
	}
	if resp, _ := get(t, s.URL(), "localhost"); resp.StatusCode != 200 {
		t.Errorf("GET / with Host localhost: %s", resp.Status)
	}
	resp, err := http.Post(s.URL()+"content", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s, want 405", resp.Status)
	}
}

// TestNextUpdate: a page's request for the update after the one it holds
// is answered once there is one, and at once after the final one.
func TestNextUpdate(t *testing.T) {
	s := listen(t)
	got := make(chan string, 1)
	go func() {
		_, body := get(t, s.URL()+"content?after=0", "")
		got <- body
	}()
	select {
	case b := <-got:
		t.Fatalf("answered before an update: %s", b)
	case <-time.After(100 * time.Millisecond):
	}
	if err := s.Update(report.View{}, map[string]int{"n": 1}, "first", false); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !strings.Contains(b, `data-seq="1" data-final="false">first<`) {
		t.Errorf("the update after 0: %s", b)
	}
	s.Update(report.View{}, map[string]int{"n": 2}, "last", true)
	s.Update(report.View{}, map[string]int{"n": 3}, "after the last", false) // ignored
	if _, b := get(t, s.URL()+"content?after=2", ""); !strings.Contains(b, `data-seq="2" data-final="true">last<`) {
		t.Errorf("after the final update: %s", b)
	}
	if _, b := get(t, s.URL()+"result.json", ""); b != `{"n":2}` {
		t.Errorf("result.json: %s", b)
	}
}

// TestCloseWaitsForOpenPage: after the final update, Close waits for a
// page that was open to take it, then stops.
func TestCloseWaitsForOpenPage(t *testing.T) {
	s, err := Listen(DefaultAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	get(t, s.URL(), "") // page 1, holding update 0
	s.Update(report.View{}, nil, "final", true)
	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close did not wait for the open page to take the final figures")
	case <-time.After(200 * time.Millisecond):
	}
	if _, b := get(t, s.URL()+"content?page=1&after=0", ""); !strings.Contains(b, `data-final="true"`) {
		t.Errorf("the page's last update: %s", b)
	}
	select {
	case <-closed:
	case <-time.After(finalWait):
		t.Fatal("Close still waiting after the page took the final figures")
	}
}
