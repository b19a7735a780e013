package uicontract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// example is one row of testdata/examples/*.json: a document that must pass
// (valid) or fail (with an error containing why) against the named schema.
type example struct {
	Schema string          `json:"schema"`
	Valid  bool            `json:"valid"`
	Why    string          `json:"why"`
	Note   string          `json:"note"`
	Gen    *generated      `json:"gen"`
	Doc    json.RawMessage `json:"doc"`
}

// generated builds a long string member that would be unreadable inline,
// such as an errorBody just over the 8 KiB limit.
type generated struct {
	Path   string `json:"path"`
	Repeat string `json:"repeat"`
	Count  int    `json:"count"`
}

// loadExamples reads every example table, in file order.
func loadExamples(t *testing.T) map[string][]example {
	t.Helper()
	files, err := filepath.Glob("testdata/examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example tables: %v", err)
	}
	out := make(map[string][]example, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rows []example
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&rows); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = rows
	}
	return out
}

// document returns the example's bytes with any generated member filled in.
func (e example) document() ([]byte, error) {
	if e.Gen == nil {
		return e.Doc, nil
	}
	var m map[string]any
	if err := json.Unmarshal(e.Doc, &m); err != nil {
		return nil, err
	}
	m[e.Gen.Path] = strings.Repeat(e.Gen.Repeat, e.Gen.Count)
	return json.Marshal(m)
}

// check validates one example the way the plugin's peers would: the schema
// first, then the rule JSON Schema cannot state (a -32001 message starts
// with its data.code).
func check(name string, doc []byte) error {
	if err := uicontract.Validate(name, doc); err != nil {
		return err
	}
	switch name {
	case "wire/error":
		return domainPrefix(doc)
	case "wire/response":
		var r struct {
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(doc, &r); err != nil || r.Error == nil {
			return err
		}
		return domainPrefix(r.Error)
	}
	return nil
}

// errPrefix is what domainPrefix reports; example tables name it in why.
var errPrefix = errors.New("message does not start with data.code")

// domainPrefix checks docs/protocol.md §2: for -32001 the diagnostic code is both
// data.code and the start of message, so hosts that forward only the message
// still see it.
func domainPrefix(raw []byte) error {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code string `json:"code"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return err
	}
	if e.Code != -32001 {
		return nil
	}
	if e.Message == e.Data.Code || strings.HasPrefix(e.Message, e.Data.Code+": ") {
		return nil
	}
	return fmt.Errorf("%w (%s)", errPrefix, e.Data.Code)
}

// TestExamples runs every positive and negative example. A negative example
// must fail for its stated reason, so a schema that rejects it by accident
// (a typo elsewhere in the document) does not count.
func TestExamples(t *testing.T) {
	for file, rows := range loadExamples(t) {
		for i, e := range rows {
			label := fmt.Sprintf("%s#%d %s", file, i, e.Schema)
			if e.Note != "" {
				label += " (" + e.Note + ")"
			}
			t.Run(label, func(t *testing.T) {
				if _, err := uicontract.Schema(e.Schema); err != nil {
					t.Fatal(err)
				}
				doc, err := e.document()
				if err != nil {
					t.Fatal(err)
				}
				err = check(e.Schema, doc)
				switch {
				case e.Valid && err != nil:
					t.Errorf("want valid, got %v", err)
				case !e.Valid && err == nil:
					t.Errorf("want invalid (%s), got valid", e.Why)
				case !e.Valid && e.Why == "":
					t.Errorf("invalid example without why; error was %v", err)
				case !e.Valid && !strings.Contains(err.Error(), e.Why):
					t.Errorf("failed for another reason: want %q in %q", e.Why, err)
				}
			})
		}
	}
}
