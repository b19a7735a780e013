package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/tidwall/gjson"
)

// extension is the pi extension's development package (integrations/pi) as
// read from its package.json. The manifest's bytes are kept: the packed
// manifest is these bytes plus optionalDependencies, so nothing else in it
// changes on the way to the tarball.
type extension struct {
	dir      string
	manifest []byte
	name     string
	version  string
	license  string
}

// semver is what npm accepts as a package version (no range, no tag).
var semver = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func readExtension(dir string) (extension, error) {
	path := filepath.Join(dir, "package.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return extension{}, fmt.Errorf("reading the extension's manifest: %w", err)
	}
	if !gjson.ValidBytes(b) || !gjson.ParseBytes(b).IsObject() {
		return extension{}, fmt.Errorf("%s is not a JSON object", path)
	}
	ext := extension{dir: dir, manifest: b}
	ext.name = gjson.GetBytes(b, "name").String()
	ext.version = gjson.GetBytes(b, "version").String()
	ext.license = gjson.GetBytes(b, "license").String()
	if ext.name == "" {
		return extension{}, fmt.Errorf("%s has no name", path)
	}
	if !semver.MatchString(ext.version) {
		return extension{}, fmt.Errorf("%s: version %q is not a semantic version", path, ext.version)
	}
	if gjson.GetBytes(b, "optionalDependencies").Exists() {
		return extension{}, fmt.Errorf("%s already has optionalDependencies; the platform packages are added only when packing, so the development manifest stays installable from the registry", path)
	}
	return ext, nil
}

// packedManifest is the extension's manifest with optionalDependencies on
// every platform package at the extension's own version: npm installs the
// one whose os and cpu match and skips the rest, so a person gets the
// binary with the extension and nothing is downloaded by a script.
func (e extension) packedManifest() ([]byte, error) {
	deps := make(map[string]string, len(targets))
	for _, t := range targets {
		deps[t.packageName()] = e.version
	}
	member, err := json.MarshalIndent(deps, "  ", "  ")
	if err != nil {
		return nil, err
	}
	body := bytes.TrimRight(e.manifest, " \t\r\n")
	end := len(body) - 1 // the object's closing brace (readExtension checked it is an object)
	var out bytes.Buffer
	out.Write(bytes.TrimRight(body[:end], " \t\r\n"))
	out.WriteString(",\n  \"optionalDependencies\": ")
	out.Write(member)
	out.WriteString("\n}\n")
	if !json.Valid(out.Bytes()) {
		return nil, fmt.Errorf("the packed manifest of %s is not valid JSON", e.name)
	}
	return out.Bytes(), nil
}

// platformManifest is the package.json of t's binary package. os and cpu
// make npm skip it on every other platform; it declares no bin, because
// the extension and the CLI package's launcher start the binary by its
// path, and only the launcher belongs on PATH.
type platformManifest struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	License     string   `json:"license,omitempty"`
	OS          []string `json:"os"`
	CPU         []string `json:"cpu"`
	Files       []string `json:"files"`
}

func (e extension) platformManifest(t target) ([]byte, error) {
	m := platformManifest{
		Name:        t.packageName(),
		Version:     e.version,
		Description: fmt.Sprintf("The continuity binary for %s, started by %s and %s", t, cliPackage, e.name),
		License:     e.license,
		OS:          []string{t.platform},
		CPU:         []string{t.arch},
		Files:       []string{"bin/", "README.md"},
	}
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// platformReadme is the one line a platform package's page says.
func (e extension) platformReadme(t target) []byte {
	return fmt.Appendf(nil, "# %s\n\nThe `continuity` binary (%s %s) that %s and %s start; install one of them, not this package.\n",
		t.packageName(), e.version, t, cliPackage, e.name)
}
