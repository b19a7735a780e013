package uicontract

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/continuity-dev/continuity/internal/strictjson"
)

//go:embed schemas texts
var files embed.FS

// base is the URL prefix of every embedded schema; nothing is fetched from it.
const base = "https://continuity.invalid/ui-contract/schemas/"

var (
	loadOnce sync.Once
	loadErr  error
	compiled map[string]*jsonschema.Schema
)

func load() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.Formats[FormatWellFormed] = wellFormed
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("ui-contract: %s is not embedded", url)
	}
	var names []string
	loadErr = fs.WalkDir(files, "schemas", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path, "schemas/"), ".json")
		names = append(names, name)
		return c.AddResource(base+name+".json", bytes.NewReader(b))
	})
	if loadErr != nil {
		return
	}
	compiled = make(map[string]*jsonschema.Schema, len(names))
	for _, n := range names {
		s, err := c.Compile(base + n + ".json")
		if err != nil {
			loadErr = fmt.Errorf("ui-contract: schema %s: %w", n, err)
			return
		}
		compiled[n] = s
	}
}

// Schema returns the compiled schema with this name.
func Schema(name string) (*jsonschema.Schema, error) {
	loadOnce.Do(load)
	if loadErr != nil {
		return nil, loadErr
	}
	s, ok := compiled[name]
	if !ok {
		return nil, fmt.Errorf("ui-contract: no schema %q", name)
	}
	return s, nil
}

// Names lists every embedded schema.
func Names() ([]string, error) {
	loadOnce.Do(load)
	if loadErr != nil {
		return nil, loadErr
	}
	out := make([]string, 0, len(compiled))
	for n := range compiled {
		out = append(out, n)
	}
	return out, nil
}

// Validate checks the JSON document doc against the named schema. The
// document is read strictly first (internal/strictjson): a duplicated member
// anywhere, a number literal beyond its bounds or nesting too deep is
// refused before the validator sees a value, so no third-party number parser
// ever meets an unbounded literal. Strings reach the validator as WTF-8, so
// a lone surrogate in an id fails the well-formed format instead of turning
// into U+FFFD. The error says which member failed and why, never the
// member's value.
func Validate(name string, doc []byte) error {
	s, err := Schema(name)
	if err != nil {
		return err
	}
	tree, err := strictjson.Decode(doc)
	if err != nil {
		return err
	}
	if err := s.Validate(tree.Value()); err != nil {
		return describe(err)
	}
	return nil
}

// ValidateValue checks a value the program decoded or built itself
// (numbers as json.Number or float64) against the named schema; input from
// outside goes through Validate.
func ValidateValue(name string, v any) error {
	s, err := Schema(name)
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return describe(err)
	}
	return nil
}

// Raw returns the bytes of the named schema file, for example to send a
// self-contained tool argument schema as a tool's inputSchema unchanged.
func Raw(name string) ([]byte, error) {
	return files.ReadFile("schemas/" + name + ".json")
}
