package workload

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// IDBlocks hands each run a block of ids of its own for the rows its
// clients insert: a row per block taken in Table, which two runs cannot
// both insert, so that runs sharing the tables at the same time never
// insert the same id, and each one's check counts its own rows alone.
// Block b holds the ids Origin + b<<Bits to Origin + (b+1)<<Bits - 1;
// blocks are numbered from 1.
type IDBlocks struct {
	Table  string
	Origin int64
	Bits   uint
	What   string // the ids, in errors ("workflow ids")
}

// DropSQL drops the table of blocks.
func (b IDBlocks) DropSQL() string { return "DROP TABLE IF EXISTS " + b.Table }

// Create makes the table of blocks when it is missing, in Init: one
// txnbench at a time (two at once may both fail to).
func (b IDBlocks) Create(ctx context.Context, c target.Conn) error {
	if _, err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+b.Table+" (block BIGINT PRIMARY KEY)"); err != nil {
		return fmt.Errorf("creating the table of blocks of %s: %w", b.What, err)
	}
	return nil
}

// Take takes the next block, in Start: above every block taken and above
// top, the highest id the tables hold (rows of runs before blocks);
// when another run takes the same block first, the next one. It returns
// the block's first and last id.
func (b IDBlocks) Take(ctx context.Context, c target.Conn, top func() (int64, error)) (first, last int64, err error) {
	for range 20 {
		hi, err := top()
		if err != nil {
			return 0, 0, fmt.Errorf("reading the last of the %s: %w", b.What, err)
		}
		var taken int64
		if err = target.QueryRow(ctx, c, "SELECT COALESCE(MAX(block), 0) FROM "+b.Table, nil, &taken); err != nil {
			return 0, 0, fmt.Errorf("reading the last block of %s: %w", b.What, err)
		}
		block := taken + 1
		if hi >= b.Origin {
			block = max(block, (hi-b.Origin)>>b.Bits+1)
		}
		if _, err = c.Exec(ctx, "INSERT INTO "+b.Table+" (block) VALUES ($1)", block); err == nil {
			first = b.Origin + block<<b.Bits
			return first, first + 1<<b.Bits - 1, nil
		}
	}
	return 0, 0, fmt.Errorf("taking a block of %s (other runs took each one first): %w", b.What, err)
}

// Stray is a condition on the id column col: an id from Origin on that
// lies in no block taken (a row no run of blocks inserted).
func (b IDBlocks) Stray(col string) string {
	size := fmt.Sprint(int64(1) << b.Bits)
	origin := fmt.Sprint(b.Origin)
	return fmt.Sprintf("%[1]s >= %[2]s AND NOT EXISTS (SELECT 1 FROM %[3]s AS blk WHERE %[1]s >= %[2]s + blk.block * %[4]s AND %[1]s < %[2]s + (blk.block + 1) * %[4]s)",
		col, origin, b.Table, size)
}
