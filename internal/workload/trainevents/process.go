package trainevents

import (
	"context"
	"fmt"

	"github.com/txnbench/txnbench/internal/target"
)

// process takes up to n of the oldest PENDING or PROCESSING events, moves
// each on (60% PROCESSING, 36% COMPLETE, 4% FAILED), thinks, and updates
// their payloads: in place for JSONB, read-modify-write for TEXT.
func (c *client) process(ctx context.Context, conn target.Conn) error {
	text := c.w.eff.TextPayload
	if err := c.pick(ctx, conn, c.w.sql.selectProcess, text); err != nil {
		return err
	}
	if len(c.ids) == 0 {
		return conn.Commit(ctx)
	}
	c.drawTransitions()
	if err := c.execEach(ctx, conn, "process: status rows updated", c.w.sql.updateStatus, c.statusArgs()); err != nil {
		return err
	}
	if err := c.think(ctx); err != nil {
		return err
	}
	if text {
		if err := c.rewritePayloads(); err != nil {
			return err
		}
	}
	return c.execCommit(ctx, conn, 0, "process: payloads updated", c.w.sql.updatePayload, c.payloadArgs())
}

// drawTransitions picks each selected event's new status, state and flag.
func (c *client) drawTransitions() {
	c.newStatus, c.newState, c.fleeted = c.newStatus[:0], c.newState[:0], c.fleeted[:0]
	for range c.ids {
		var s string
		switch p := c.rng.IntN(100); {
		case p < 60:
			s = statusProcessing
		case p < 96:
			s = statusComplete
		default:
			s = statusFailed
		}
		c.newStatus = append(c.newStatus, s)
		c.newState = append(c.newState, newStates[c.rng.IntN(len(newStates))])
		c.fleeted = append(c.fleeted, c.rng.IntN(2) == 0)
	}
}

// rewritePayloads sets state and metrics.flags.fleeted in each TEXT
// payload read by the select, as an application holding a string would,
// into the client's buffer of rewritten documents.
func (c *client) rewritePayloads() error {
	d := &c.rewritten
	d.reset()
	for i, p := range c.payloads {
		var err error
		if d.buf, err = appendRewrite(d.buf, p, c.newState[i], c.fleeted[i]); err != nil {
			return fmt.Errorf("process: payload of event %s: %w", appendUUID(nil, c.ids[i]), err)
		}
		d.ends = append(d.ends, len(d.buf))
	}
	c.payloads = d.slices(c.payloads[:0])
	return nil
}
