package localdb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/txnbench/txnbench/internal/pooler"
)

// FleetOptions configures a fleet of throwaway PgBouncers in front of one
// server.
type FleetOptions struct {
	// Bouncer configures each member alike; its Port is the fleet's to
	// choose, and so is its Password when "" (one for all members).
	Bouncer BouncerOptions
	// Size is how many PgBouncers; 0 or 1 is one, with no HAProxy.
	Size int
	// HAProxyBin is the haproxy binary; "" discovers it with FindHAProxy.
	HAProxyBin string
}

// Fleet is one or more throwaway PgBouncers sharing a client password and,
// when there are several, a throwaway HAProxy in front of them: one address
// for the clients (URL), connections balanced leastconn, a pooler that dies
// or stops answering left out after its failed health checks (a protocol
// check: see HAProxyCheck) and its refused connections retried on another. Each member and the proxy is a supervised process:
// Restart, Kill, Supervise, Stop.
type Fleet struct {
	members []*Bouncer
	proxy   *HAProxy // nil with one member
}

// StartFleet starts o.Size PgBouncers, each on a port of its own, and
// HAProxy in front of them when there are several. On any error it leaves
// nothing behind.
func StartFleet(ctx context.Context, o FleetOptions) (*Fleet, error) {
	n := max(o.Size, 1)
	if n > 1 {
		// Before starting anything: a missing haproxy is said at once.
		if _, err := FindHAProxy(o.HAProxyBin); err != nil {
			return nil, err
		}
	}
	f := &Fleet{}
	ok := false
	defer func() {
		if !ok {
			_ = f.Stop()
		}
	}()
	bo := o.Bouncer
	bo.Port = 0
	bo.plainToo = n > 1 // HAProxy's health checks speak plain text
	var err error
	if bo.Password == "" {
		if bo.Password, err = NewPassword(); err != nil {
			return nil, err
		}
	}
	ports := make([]int, n)
	for i := range n {
		b, err := StartPgBouncer(ctx, bo)
		if err != nil {
			if n > 1 {
				return nil, fmt.Errorf("pooler %d of %d: %w", i+1, n, err)
			}
			return nil, err
		}
		f.members = append(f.members, b)
		ports[i] = b.Port()
	}
	if n > 1 {
		maxConn := bo.MaxClientConn
		if maxConn <= 0 {
			maxConn = pooler.DefaultMaxClientConn
		}
		// The health check logs in as the clients do (up to the
		// password), so each member answers it as it answers them.
		var user string
		if u, err := url.Parse(f.members[0].URL("")); err == nil {
			user = u.User.Username()
		}
		f.proxy, err = StartHAProxy(ctx, HAProxyOptions{Bin: o.HAProxyBin, Servers: ports, MaxConn: maxConn, CheckUser: user})
		if err != nil {
			return nil, err
		}
	}
	ok = true
	return f, nil
}

// Members returns the fleet's PgBouncers, in the order HAProxy names them
// (pooler1, pooler2, ...).
func (f *Fleet) Members() []*Bouncer { return f.members }

// Proxy returns the HAProxy in front of the members, or nil when the fleet
// is one PgBouncer.
func (f *Fleet) Proxy() *HAProxy { return f.proxy }

// URL returns the URL clients use to reach database dbname through the
// fleet: HAProxy's address, or the only member's. It holds the members'
// password: mask it wherever it is shown.
func (f *Fleet) URL(dbname string) string {
	s := f.members[0].URL(dbname)
	if f.proxy == nil {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(f.proxy.Port()))
	return u.String()
}

// Port returns the port clients connect to.
func (f *Fleet) Port() int {
	if f.proxy != nil {
		return f.proxy.Port()
	}
	return f.members[0].Port()
}

// Restart restarts every member, then the proxy (their counters start from
// zero).
func (f *Fleet) Restart(ctx context.Context) error {
	for _, b := range f.members {
		if err := b.Restart(ctx); err != nil {
			return err
		}
	}
	if f.proxy != nil {
		return f.proxy.Restart(ctx)
	}
	return nil
}

// Stop stops the proxy and every member and removes their directories.
func (f *Fleet) Stop() error { return f.each((*supervised).Stop) }

// StopNow is Stop at once (see supervised.StopNow).
func (f *Fleet) StopNow() error { return f.each((*supervised).StopNow) }

// each calls stop on the proxy, then on every member.
func (f *Fleet) each(stop func(*supervised) error) error {
	var errs []error
	if f.proxy != nil {
		errs = append(errs, stop(&f.proxy.supervised))
	}
	for _, b := range f.members {
		errs = append(errs, stop(&b.supervised))
	}
	return errors.Join(errs...)
}
