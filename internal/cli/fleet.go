package cli

import (
	"errors"
	"fmt"

	"github.com/txnbench/txnbench/internal/localdb"
	"github.com/txnbench/txnbench/internal/target"
)

// maxPoolers caps --poolers: each is a process with its own server
// connections.
const maxPoolers = 16

// validatePoolers checks --poolers against --via, and that HAProxy is
// there to front a fleet, before anything starts.
func validatePoolers(v target.Via) error {
	p := v.PgBouncer
	switch {
	case p.Poolers < 1 || p.Poolers > maxPoolers:
		return fmt.Errorf("--poolers %d: give 1 to %d", p.Poolers, maxPoolers)
	case p.Poolers == 1:
		return nil
	case v.Kind != target.ViaPgBouncer:
		return errors.New("--poolers needs --via pgbouncer: txnbench starts the fleet itself (to measure your own, give its address with --via URL)")
	}
	_, err := localdb.FindHAProxy("")
	return err
}
