package localdb

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
)

// NewPassword returns a random password for a throwaway server, pooler or role:
// 32 hex digits, so it needs no quoting or escaping anywhere.
func NewPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// writeSecret writes a file holding a password, readable only by its owner:
// u when not nil (the user the server runs as), else ourselves.
func writeSecret(path, content string, u *runAs) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// An existing file keeps its mode on O_TRUNC: make sure of it.
	if err = f.Chmod(0o600); err == nil {
		_, err = f.WriteString(content)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := u.chown(path); err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}
