package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Files of the status page in the data directory.
const (
	// pageSecretFile holds the page's secret, so its address (which
	// carries the secret in its fragment) stays the same across restarts.
	pageSecretFile = "page-secret"
	// pageAddressFile holds the page's address without the secret, as the
	// proxy last started on the data directory printed it.
	pageAddressFile = "page-address"
)

// PageSecret returns the status page's secret kept in dir, making it on
// first use: 128 random bits as hex, in a file only its owner can read
// (0600). A file others could read, or that does not hold a secret, is
// replaced by a new secret, as the old one may be known.
func PageSecret(dir string) (secret string, err error) {
	path := filepath.Join(dir, pageSecretFile)
	if b, err := os.ReadFile(path); err == nil {
		fi, serr := os.Stat(path)
		s := strings.TrimSpace(string(b))
		if serr == nil && privateFile(fi) && len(s) == 32 && isHex(s) {
			return s, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("continuity proxy: reading the page secret: %w", err)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported systems
	secret = hex.EncodeToString(b)
	// Written beside and renamed, so a reader never sees half a secret.
	tmp, err := os.CreateTemp(dir, pageSecretFile+".*")
	if err != nil {
		return "", fmt.Errorf("continuity proxy: writing the page secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := errors.Join(tmp.Chmod(0o600), writeClose(tmp, secret+"\n")); err != nil {
		return "", fmt.Errorf("continuity proxy: writing the page secret: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("continuity proxy: writing the page secret: %w", err)
	}
	return secret, nil
}

// SavePageAddress records the page's address (without the secret) for
// `continuity page`.
func SavePageAddress(dir, address string) error {
	if err := os.WriteFile(filepath.Join(dir, pageAddressFile), []byte(address+"\n"), 0o600); err != nil {
		return fmt.Errorf("continuity proxy: recording the page's address: %w", err)
	}
	return nil
}

// ErrNoPage is PageAddress's answer when no proxy has started on the
// data directory.
var ErrNoPage = errors.New("no proxy has started on this data directory yet")

// PageAddress returns the page's address with its secret, as the proxy
// last started on dir serves it.
func PageAddress(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, pageAddressFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoPage
	}
	if err != nil {
		return "", err
	}
	secret, err := PageSecret(dir)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)) + "#k=" + secret, nil
}

// privateFile reports a file only its owner can read or write. Windows
// keeps access in ACLs, not these bits, and the data directory is the
// user's own there.
func privateFile(fi fs.FileInfo) bool {
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o077 == 0
}

func writeClose(f *os.File, s string) error {
	_, err := f.WriteString(s)
	return errors.Join(err, f.Close())
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}
