package localdb

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
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

// NewLogin returns a new password (NewPassword) and its SCRAM-SHA-256
// verifier, to store both in a server (CREATE ROLE ... PASSWORD
// 'VERIFIER') and in a PgBouncer (BouncerOptions.Verifier).
func NewLogin() (password, verifier string, err error) {
	if password, err = NewPassword(); err != nil {
		return "", "", err
	}
	if verifier, err = scramVerifier(password); err != nil {
		return "", "", err
	}
	return password, verifier, nil
}

// scramIterations is the PBKDF2 iteration count of the SCRAM verifiers
// scramVerifier makes: PostgreSQL's default (scram_iterations).
const scramIterations = 4096

// scramVerifier returns password's SCRAM-SHA-256 verifier in PostgreSQL's
// form, SCRAM-SHA-256$ITERATIONS:SALT$STOREDKEY:SERVERKEY (RFC 5802 and
// 7677, base64), with a new random salt. A service that stores it checks a
// client's proof with two hashes; one that stores the password derives the
// salted password (PBKDF2, 4,096 rounds) for every login. The password
// must be printable ASCII (as NewPassword's are), which SASLprep leaves
// as it is.
func scramVerifier(password string) (string, error) {
	for _, r := range password {
		if r < 0x20 || r > 0x7e {
			return "", errors.New("a SCRAM verifier is made here only for a printable ASCII password")
		}
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("generating a SCRAM salt: %w", err)
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("deriving a SCRAM key: %w", err)
	}
	mac := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac("Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(stored[:]), b64(mac("Server Key"))), nil
}
