package filter

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureDir holds the real pi-ai request bodies (the repository's copy,
// kept by the supplier fixtures).
var fixtureDir = filepath.Join("..", "fixtures", "supplier", "testdata", "pi-ai-abab")

type abab struct {
	Keys    map[string]string `json:"keys"`
	Records []struct {
		File        string   `json:"file"`
		Turn        int      `json:"turn"`
		Step        int      `json:"step"`
		Account     string   `json:"account"`
		WouldReject []string `json:"wouldReject"`
	} `json:"records"`
}

func loadABAB(t *testing.T) abab {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m abab
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// rejections lists what the fixture supplier would reject in body when
// sent by account: reasoning whose ciphertext HMAC was not made with the
// account's key ("foreign rs_N"), and fc_N/msg_N ids not directly preceded
// by their reasoning rs_N ("unpaired fc_N").
func rejections(t *testing.T, body []byte, key string) []string {
	t.Helper()
	var p struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("output is not valid JSON: %v", err)
	}
	var out []string
	for k, it := range p.Input {
		id, _ := it["id"].(string)
		if it["type"] == "reasoning" {
			if !issuedBy(it["encrypted_content"].(string), key) {
				out = append(out, "foreign "+id)
			}
			continue
		}
		if n, ok := strings.CutPrefix(id, "fc_"); ok || strings.HasPrefix(id, "msg_") {
			if !ok {
				n = strings.TrimPrefix(id, "msg_")
			}
			if k == 0 || p.Input[k-1]["type"] != "reasoning" || p.Input[k-1]["id"] != "rs_"+n {
				out = append(out, "unpaired "+id)
			}
		}
	}
	return out
}

// issuedBy checks the fixture scheme: "gAAAAAB" + base64url(plain) + "." +
// the first 32 hex digits of HMAC-SHA256(key, plain).
func issuedBy(cipher, key string) bool {
	body, mac, ok := strings.Cut(strings.TrimPrefix(cipher, "gAAAAAB"), ".")
	if !ok {
		return false
	}
	plain, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(body, "="))
	if err != nil {
		return false
	}
	h := hmac.New(sha256.New, []byte(key))
	h.Write(plain)
	return hex.EncodeToString(h.Sum(nil))[:32] == mac
}

func TestABABFixtures(t *testing.T) {
	m := loadABAB(t)
	var turn *Turn
	var plain *Turn // the same turns without paired-id stripping
	for _, r := range m.Records {
		in, err := os.ReadFile(filepath.Join(fixtureDir, r.File))
		if err != nil {
			t.Fatal(err)
		}
		key := m.Keys[r.Account]
		// The checker agrees with the manifest about the unfiltered body.
		foreign := slices.DeleteFunc(rejections(t, in, key), func(s string) bool { return !strings.HasPrefix(s, "foreign") })
		if !slices.Equal(foreign, r.WouldReject) {
			t.Fatalf("%s: checker finds %v, manifest says %v", r.File, foreign, r.WouldReject)
		}
		if r.Step == 1 {
			turn, plain = NewTurn(Options{StripPairedIDs: true}), NewTurn(Options{})
		}
		res := mustApply(t, turn, in)
		out := final(res, in)
		if got := rejections(t, out, key); len(got) != 0 {
			t.Errorf("%s: filtered body would be rejected: %v", r.File, got)
		}
		if res.SHA256 != sha256.Sum256(out) {
			t.Errorf("%s: final sum is not over the final bytes", r.File)
		}
		// Every turn's first step omits all the reasoning that was there;
		// later steps keep the reasoning the turn itself produced.
		var parsed struct{ Input []map[string]any }
		json.Unmarshal(in, &parsed)
		reasoning := 0
		for _, it := range parsed.Input {
			if it["type"] == "reasoning" {
				reasoning++
			}
		}
		kept := strings.Count(string(out), `"type":"reasoning"`)
		switch {
		case r.Step == 1 && (res.Omitted.Items != reasoning || kept != 0):
			t.Errorf("%s: first step omitted %d of %d reasoning items", r.File, res.Omitted.Items, reasoning)
		case r.Step > 1 && kept == 0 && reasoning > res.Omitted.Items:
			t.Errorf("%s: the turn's own reasoning was not kept", r.File)
		}
		// Without stripping, the omitted reasoning leaves unpaired ids
		// behind from turn 2 on: the stripping is what removes them.
		pres := mustApply(t, plain, in)
		unpaired := rejections(t, final(pres, in), key)
		if (r.Turn > 1) != (len(unpaired) > 0) {
			t.Errorf("%s: without stripping, unpaired ids %v", r.File, unpaired)
		}
	}
}
