package target

import "context"

// Listener is a Conn that receives notifications (LISTEN/NOTIFY, where
// Capabilities.ListenNotify says the dialect has them). A session that
// listens must be the server's own: through a transaction pooler the
// LISTEN stays on whichever server connection ran it.
type Listener interface {
	// Listen subscribes the session to channel.
	Listen(ctx context.Context, channel string) error
	// WaitForNotification blocks until a notification arrives on a channel
	// the session listens to, and returns its payload.
	WaitForNotification(ctx context.Context) (payload string, err error)
}
