package rejection

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// corpusCase is one recorded error body with the verdict it must get.
type corpusCase struct {
	name   string
	status int
	want   string
	body   string
}

// loadCorpus reads a txtar corpus: per file, the status, the expected
// Verdict.String(), then the body.
func loadCorpus(t *testing.T, path string) []corpusCase {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for _, f := range ar.Files {
		parts := strings.SplitN(string(f.Data), "\n", 3)
		if len(parts) != 3 {
			t.Fatalf("%s: %s: want status, verdict and body lines", path, f.Name)
		}
		status, err := strconv.Atoi(parts[0])
		if err != nil {
			t.Fatalf("%s: %s: status: %v", path, f.Name, err)
		}
		cases = append(cases, corpusCase{f.Name, status, parts[1], strings.TrimSuffix(parts[2], "\n")})
	}
	return cases
}

// idShape is what Verdict.Item may ever hold.
var idShape = regexp.MustCompile(`^(rs|fc|msg|cmp|ctc)_[A-Za-z0-9_-]{1,124}$`)

func TestClassifyCorpus(t *testing.T) {
	rej := loadCorpus(t, "testdata/rejections.txtar")
	unrel := loadCorpus(t, "testdata/unrelated.txtar")
	if len(rej) < 12 || len(unrel) < 8 {
		t.Fatalf("corpus too small: %d rejections, %d unrelated", len(rej), len(unrel))
	}
	for _, c := range append(rej, unrel...) {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(c.status, c.body)
			if got := v.String(); got != c.want {
				t.Fatalf("Classify = %q, want %q", got, c.want)
			}
			checkClean(t, v)
		})
	}
	for _, c := range rej {
		if !Classify(c.status, c.body).Rejected() {
			t.Errorf("%s: rejection corpus entry not rejected", c.name)
		}
	}
}

// checkClean asserts that a verdict carries nothing but a kind and an id.
func checkClean(t *testing.T, v Verdict) {
	t.Helper()
	if v.Item != "" && !idShape.MatchString(v.Item) {
		t.Errorf("Item %q is not an item id", v.Item)
	}
	if v.Kind == None && v.Item != "" {
		t.Errorf("Item %q without a kind", v.Item)
	}
	if strings.Contains(v.String(), "gAAA") {
		t.Errorf("verdict %q carries ciphertext", v)
	}
}

func TestReplayScope(t *testing.T) {
	scope := map[Kind]bool{
		None: false, NotVerified: true, Undecryptable: true, OrganizationMismatch: true,
		ItemMismatch: true, NotIssued: true, ConnectionBound: true, Pairing: false,
	}
	for k, want := range scope {
		if got := (Verdict{Kind: k}).ReplayScope(); got != want {
			t.Errorf("%q.ReplayScope() = %v, want %v", k, got, want)
		}
	}
}

// TestStatusGate runs one rejection body under every status class: only
// client errors other than 408 and 429 (and the status-less 0) classify.
func TestStatusGate(t *testing.T) {
	body := `{"error":{"message":"The encrypted content for item rs_2 could not be verified. Reason: Encrypted content organization_id did not match the target organization.","code":"invalid_encrypted_content"}}`
	for _, tc := range []struct {
		status int
		want   bool
	}{
		{0, true}, {200, false}, {302, false}, {400, true}, {401, true}, {403, true},
		{404, true}, {408, false}, {422, true}, {429, false}, {500, false}, {502, false}, {503, false},
	} {
		if got := Classify(tc.status, body).Rejected(); got != tc.want {
			t.Errorf("status %d: Rejected = %v, want %v", tc.status, got, tc.want)
		}
	}
}

// TestTruncated cuts envelopes at the 8 KiB host limit, mid-JSON.
func TestTruncated(t *testing.T) {
	pad := strings.Repeat("x", 12<<10)
	for _, tc := range []struct {
		name string
		body string
		want string
	}{
		{
			"cut-after-phrase",
			`{"error":{"message":"The encrypted content for item rs_5 could not be verified. Reason: Encrypted content organization_id did not match the target organization.","code":"invalid_encrypted_content","details":"` + pad + `"}}`,
			"organization-mismatch rs_5",
		},
		{
			"cut-in-litellm-tail",
			`{"error":{"message":"litellm.BadRequestError: OpenAIException - {\"error\":{\"message\":\"input item ID does not belong to this connection\",\"code\":\"\"}}. Received Model Group=` + pad,
			"connection-bound",
		},
		{
			"cut-inside-id",
			strings.Repeat(" ", MaxBody-len("The encrypted content for item rs_12")) + "The encrypted content for item rs_12345 could not be verified.",
			"none",
		},
		{
			"phrase-beyond-limit",
			`{"error":{"debug":"` + pad + `","message":"input item ID does not belong to this connection"}}`,
			"none",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if len(body) > MaxBody {
				body = body[:MaxBody]
			}
			if got := Classify(400, body).String(); got != tc.want {
				t.Fatalf("Classify = %q, want %q", got, tc.want)
			}
			// Passing the uncut body must read no further than the host would.
			if got := Classify(400, tc.body).String(); got != tc.want {
				t.Fatalf("Classify(uncut) = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCutIDDropped: an id that runs into the end of the body is not
// reported, since the cut may have shortened it.
func TestCutIDDropped(t *testing.T) {
	v := Classify(400, `{"error":{"code":"invalid_encrypted_content","message":"The encrypted content for item rs_12`)
	if v.Kind != NotVerified || v.Item != "" {
		t.Fatalf("got %v, want not-verified without item", v)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`a\"b`:          `a"b`,
		`\\\"x\\\"`:     `"x"`,
		`\u0027q\u0027`: `'q'`,
		`line\nnext`:    `line next`,
		`cut\u00`:       `cut\u00`,
		`tail\`:         `tail\`,
		`\'py\'`:        `'py'`,
		`\ud800`:        "\uFFFD",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add(400, `{"error":{"message":"The encrypted content for item rs_1 could not be verified.","code":"invalid_encrypted_content"}}`)
	f.Add(401, `input item ID does not belong to this connection: msg_\u0027`)
	f.Add(400, `Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		checkClean(t, Classify(status, body))
	})
}

func BenchmarkClassify(b *testing.B) {
	body := `{"error":{"message":"litellm.BadRequestError: OpenAIException - {\"error\":{\"message\":\"The encrypted content for item rs_0c1f77 could not be verified. Reason: Encrypted content organization_id did not match the target organization.\",\"code\":\"invalid_encrypted_content\"}}. ` + strings.Repeat("Received Model Group=gpt-5.4 ", 300)
	body = body[:MaxBody]
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !Classify(400, body).Rejected() {
			b.Fatal("not rejected")
		}
	}
}
