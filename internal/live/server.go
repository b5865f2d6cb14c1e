package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ParseAddr checks a HOST:PORT listen address without listening: HOST may
// be empty (every interface), a name or an IP (IPv6 in brackets); PORT is
// a number from 0 to 65535, 0 picking a free port.
func ParseAddr(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("want HOST:PORT, e.g. 127.0.0.1:9464 or :9464 (port 0 picks a free one)")
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 || strings.HasPrefix(p, "+") {
		return "", 0, fmt.Errorf("port %q is not a number from 0 to 65535: want HOST:PORT, e.g. 127.0.0.1:9464", p)
	}
	if strings.ContainsAny(host, " /\\@?#%\t\r\n") {
		return "", 0, fmt.Errorf("host %q is not a host name or IP address: want HOST:PORT, e.g. 127.0.0.1:9464", host)
	}
	return host, port, nil
}

// Server serves Metrics over HTTP at /metrics.
type Server struct {
	ln   net.Listener
	host string // as given to Listen ("" for every interface)
	srv  *Serving
}

// Listen listens on addr and serves m at /metrics until Close. A busy or
// forbidden address is an error that says what to do.
func Listen(addr string, m *Metrics) (*Server, error) {
	ln, host, err := ListenTCP(addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "txnbench: Prometheus metrics are at /metrics")
	})
	return &Server{ln: ln, host: host, srv: Serve(ln, mux)}, nil
}

// Serving is h served over HTTP on a listener until Close; the metrics
// endpoint and the live dashboard both serve so.
type Serving struct {
	http *http.Server
	done chan struct{}
}

// Serve serves h on ln until Close.
func Serve(ln net.Listener, h http.Handler) *Serving {
	s := &Serving{http: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.http.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s
}

// Close stops serving: requests in progress get a few seconds to finish,
// and it returns once the server has.
func (s *Serving) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.http.Close()
	}
	<-s.done
	return err
}

// ListenTCP checks addr (ParseAddr) and listens on it; it returns the
// host as given ("" for every interface). A busy or forbidden address is
// an error that says what to do. The live dashboard listens through it
// too.
func ListenTCP(addr string) (net.Listener, string, error) {
	host, _, err := ParseAddr(addr)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", listenError(addr, err)
	}
	return ln, host, nil
}

func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%s is already in use (another txnbench or exporter?): choose another port, or port 0 for a free one", addr)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("not allowed to listen on %s: choose a port above 1023", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("%s is not an address of this machine: use one of its addresses, e.g. 127.0.0.1:9464, or :9464 for all", addr)
	}
	return fmt.Errorf("listening on %s: %w", addr, err)
}

// Addr is the address listened on, with the real port.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is where the metrics are: at the host given to Listen, or, when it
// gave none, the address listened on as the system reports it ([::] or
// 0.0.0.0: every interface), with the real port.
func (s *Server) URL() string {
	host, port, _ := net.SplitHostPort(s.ln.Addr().String())
	if s.host != "" {
		host = s.host
	}
	return "http://" + net.JoinHostPort(host, port) + "/metrics"
}

// EveryInterface reports whether the server listens on every interface
// (an empty or unspecified host), which anyone who reaches the machine
// can scrape.
func (s *Server) EveryInterface() bool {
	host, _, _ := net.SplitHostPort(s.ln.Addr().String())
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// Close stops serving: scrapes in progress get a few seconds to finish.
func (s *Server) Close() error { return s.srv.Close() }
