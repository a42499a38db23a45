package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConnFileName is the connection file's name in the state folder.
const ConnFileName = "sidecar.json"

// ConnFile is <state>/sidecar.json: how a client on this machine finds and
// authenticates to the running sidecar. It holds the token, so only its
// owner may read it (mode 0600).
type ConnFile struct {
	// Port is the TCP port on 127.0.0.1.
	Port int `json:"port"`
	// Token is the per-launch secret that hello must carry.
	Token string `json:"token"`
	// PID is the sidecar's process id; a file whose process is gone is
	// stale.
	PID int `json:"pid"`
	// Protocol is the newest protocol version the sidecar speaks.
	Protocol int `json:"protocol"`
	// MinProtocol is the oldest one it speaks (absent from sidecars from
	// before ranges, which speak Protocol alone).
	MinProtocol int `json:"minProtocol,omitempty"`
	// Version is the sidecar's release version.
	Version string `json:"version"`
}

// WriteConnFile writes f to path atomically (temporary file, then rename),
// so that a client never reads half a file, with mode 0600.
func WriteConnFile(path string, f ConnFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteFile(path, append(data, '\n'), 0o600)
}

// ReadConnFile reads a connection file.
func ReadConnFile(path string) (ConnFile, error) {
	var f ConnFile
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("read %s: %w", path, err)
	}
	if f.Port <= 0 || f.Token == "" {
		return f, fmt.Errorf("read %s: %w", path, errors.New("no port or token"))
	}
	return f, nil
}

// RemoveConnFile removes the connection file if it still names this
// process, so that a sidecar exiting late cannot remove its successor's.
func RemoveConnFile(path string) error {
	f, err := ReadConnFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
	} else if f.PID != os.Getpid() {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// SecretFileName is the file in the state folder holding its secret.
const SecretFileName = "secret"

// Secret returns the secret of the state folder at dir, making one the
// first time: 32 random bytes, hex, in a file only its owner can read
// (mode 0600). A sidecar proves with it that it is this folder's engine
// (proto.Welcome.Proof) without sending it: the token in the connection
// file is sent in every hello, so whatever listens on its port learns it.
// Call it with the folder's lock held.
func Secret(dir string) (string, error) {
	path := filepath.Join(dir, SecretFileName)
	data, err := os.ReadFile(path)
	if s := strings.TrimSpace(string(data)); err == nil && len(s) >= 32 {
		return s, nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read secret: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make secret: %w", err)
	}
	s := hex.EncodeToString(b)
	if err := WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write secret: %w", err)
	}
	return s, nil
}
