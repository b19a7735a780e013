// Package npmregistry is an npm registry double on loopback for the tests
// that install continuity's packages the way a person will once they are
// published: the real npm resolves them, and their optional platform
// packages, from it. It lives apart from the product (no binary links it).
package npmregistry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Registry serves the packuments and tarballs of the packages cmd/pack
// made, the way the npm registry will once they are published, so the real
// npm (of `npm install`, `npx`, `pi install npm:…`) resolves a package and
// its optional platform packages from it. The platform packages not built
// here are listed with their os and cpu, as published ones would be, and
// their tarballs must never be asked for.
type Registry struct {
	srv       *httptest.Server
	docs      map[string][]byte // package name → packument
	tarballs  map[string][]byte // file name → bytes
	mu        sync.Mutex
	requested []string
}

// Start serves the given tarballs, and an entry for every other platform
// package the packed packages' optionalDependencies name, until the test
// ends.
func Start(t *testing.T, tarballs ...string) *Registry {
	t.Helper()
	reg := &Registry{docs: map[string][]byte{}, tarballs: map[string][]byte{}}
	reg.srv = httptest.NewServer(http.HandlerFunc(reg.serve))
	t.Cleanup(reg.srv.Close)
	var optional map[string]string
	for _, path := range tarballs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		manifest := Manifest(t, path, b)
		var m struct {
			Name     string            `json:"name"`
			Version  string            `json:"version"`
			Optional map[string]string `json:"optionalDependencies"`
		}
		if err := json.Unmarshal(manifest, &m); err != nil {
			t.Fatalf("%s: package.json: %v", path, err)
		}
		for name, version := range m.Optional {
			if optional == nil {
				optional = map[string]string{}
			}
			optional[name] = version
		}
		file := filepath.Base(path)
		reg.mu.Lock()
		reg.tarballs[file] = b
		reg.mu.Unlock()
		reg.publish(t, m.Name, m.Version, manifest, file, b)
	}
	for name, version := range optional {
		reg.mu.Lock()
		_, ok := reg.docs[name]
		reg.mu.Unlock()
		if ok {
			continue
		}
		// os and cpu from the name's platform-arch, as that package declares them.
		platform, arch, _ := strings.Cut(strings.TrimPrefix(name, "@continuity-dev/continuity-"), "-")
		manifest, _ := json.Marshal(map[string]any{"name": name, "version": version, "os": []string{platform}, "cpu": []string{arch}})
		reg.publish(t, name, version, manifest, strings.NewReplacer("@", "", "/", "-").Replace(name)+"-"+version+".tgz", []byte("never built here"))
	}
	return reg
}

// publish adds a packument for one version, with dist's tarball URL and
// digests as npm checks them.
func (reg *Registry) publish(t *testing.T, name, version string, manifest []byte, file string, tarball []byte) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(manifest, &v); err != nil {
		t.Fatal(err)
	}
	s512, s1 := sha512.Sum512(tarball), sha1.Sum(tarball)
	v["dist"] = map[string]string{
		"tarball":   reg.srv.URL + "/tarballs/" + file,
		"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		"shasum":    hex.EncodeToString(s1[:]),
	}
	doc, err := json.Marshal(map[string]any{"name": name, "dist-tags": map[string]string{"latest": version}, "versions": map[string]any{version: v}})
	if err != nil {
		t.Fatal(err)
	}
	reg.mu.Lock()
	reg.docs[name] = doc
	reg.mu.Unlock()
}

// serve answers npm. The maps are filled before Start returns and never
// after; serve takes them under mu, which orders those writes before its
// reads (npm, another process, gives no happens-before of its own with
// the test goroutine that filled them).
func (reg *Registry) serve(w http.ResponseWriter, r *http.Request) {
	reg.mu.Lock()
	reg.requested = append(reg.requested, r.URL.Path)
	tarballs, docs := reg.tarballs, reg.docs
	reg.mu.Unlock()
	if file, ok := strings.CutPrefix(r.URL.Path, "/tarballs/"); ok {
		if b, ok := tarballs[file]; ok {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(b)
			return
		}
	} else if doc, ok := docs[strings.TrimPrefix(r.URL.Path, "/")]; ok {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
		return
	}
	http.NotFound(w, r)
}

// URL is the registry's address, for npm_config_registry (with a trailing
// slash, as npm wants it).
func (reg *Registry) URL() string { return reg.srv.URL + "/" }

// Paths is every path asked for, in order.
func (reg *Registry) Paths() []string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return append([]string(nil), reg.requested...)
}

// Manifest reads package/package.json out of an npm tarball.
func Manifest(t *testing.T, path string, tgz []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s has no package/package.json: %v", path, err)
		}
		if h.Name == "package/package.json" {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}
