package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// archiveName is t's release archive: continuity-VERSION-GOOS-GOARCH, a
// zip for Windows (what Explorer opens) and a tar.gz elsewhere (which
// keeps the executable bit).
func (t target) archiveName(version string) string {
	base := "continuity-" + version + "-" + t.goos + "-" + t.goarch
	if t.goos == "windows" {
		return base + ".zip"
	}
	return base + ".tar.gz"
}

// archives writes one archive per target — a top directory named like the
// archive holding the binary, README.md and LICENSE — and SHA256SUMS in
// the format `sha256sum -c` reads. It returns their paths, SHA256SUMS last.
func (p packer) archives(ts []target) ([]string, error) {
	var paths []string
	var sums strings.Builder
	for _, t := range ts {
		name := t.archiveName(p.ext.version)
		top := strings.TrimSuffix(strings.TrimSuffix(name, ".zip"), ".tar.gz")
		files := []archived{
			{src: p.builtBinary(t), name: top + "/" + t.executable(), mode: 0o755},
			{src: filepath.Join(p.repo, "README.md"), name: top + "/README.md", mode: 0o644},
			{src: filepath.Join(p.repo, "LICENSE"), name: top + "/LICENSE", mode: 0o644},
		}
		path := filepath.Join(p.out, name)
		write := writeTarGz
		if t.goos == "windows" {
			write = writeZip
		}
		if err := write(path, files); err != nil {
			return nil, fmt.Errorf("writing %s: %w", name, err)
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, name)
		paths = append(paths, path)
	}
	sumsPath := filepath.Join(p.out, "SHA256SUMS")
	if err := os.WriteFile(sumsPath, []byte(sums.String()), 0o644); err != nil {
		return nil, err
	}
	return append(paths, sumsPath), nil
}

// archived is one file of an archive: read from src, stored as name.
type archived struct {
	src, name string
	mode      int64
}

func writeTarGz(path string, files []archived) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, a := range files {
		b, err := os.ReadFile(a.src)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: a.name, Mode: a.mode, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeZip(path string, files []archived) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	for _, a := range files {
		src, err := os.Open(a.src)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: a.name, Method: zip.Deflate}
		h.SetMode(os.FileMode(a.mode))
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = io.Copy(w, src)
		}
		src.Close()
		if err != nil {
			return err
		}
	}
	return zw.Close()
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
