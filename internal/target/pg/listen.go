package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Listen subscribes the session to channel (target.Listener).
func (p *pgConn) Listen(ctx context.Context, channel string) error {
	_, err := p.c.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize())
	return err
}

// WaitForNotification waits for the next notification and returns its
// payload (target.Listener).
func (p *pgConn) WaitForNotification(ctx context.Context) (string, error) {
	n, err := p.c.WaitForNotification(ctx)
	if err != nil {
		return "", err
	}
	return n.Payload, nil
}
