package localdb

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// restartable is what a Cluster and a Bouncer share for the test below.
type restartable interface {
	Port() int
	Kill(syscall.Signal) error
	Restart(context.Context) error
	Stop() error
}

// TestRestartNamesPortHolder: a server or PgBouncer whose port another
// process took while it was down fails to restart at once with one line
// that says so and names that process (pid, command, user), instead of
// "choose another port".
func TestRestartNamesPortHolder(t *testing.T) {
	needBin(t)
	needPgBouncer(t)
	for _, c := range []struct {
		name  string
		start func() (restartable, error)
	}{
		{"PostgreSQL", func() (restartable, error) {
			return Start(context.Background(), Options{})
		}},
		{"PgBouncer", func() (restartable, error) {
			return StartPgBouncer(context.Background(), BouncerOptions{BackendPort: 1, BackendUser: "postgres"})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.start()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			if err := p.Kill(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port())))
			if err != nil {
				t.Fatalf("taking the freed port: %v", err)
			}
			defer ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			err = p.Restart(ctx)
			if err == nil {
				t.Fatal("restarted on a port another process holds")
			}
			first, _, _ := strings.Cut(err.Error(), "\n")
			want := fmt.Sprintf("restarting %s: port %d on 127.0.0.1 is held by pid %d (%s", c.name, p.Port(), os.Getpid(), os.Args[0])
			if !strings.HasPrefix(first, want) || !strings.Contains(first, "end that process and run again") {
				t.Errorf("error %q\nwant it to start %q and name the fix", first, want)
			}
			if !isPortInUse(err) {
				t.Errorf("the error does not say the port is in use: %v", err)
			}
		})
	}
}
