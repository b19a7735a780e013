package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/sqlstore"
)

func testLedger(t *testing.T) *ledger {
	t.Helper()
	db, err := sqlstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := openLedger(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLedgerBounds: past its bound the ledger forgets the oldest records
// first, a fingerprint keeps its first issuer, and a session's accounts
// come back in order of first use.
func TestLedgerBounds(t *testing.T) {
	ctx := context.Background()
	l := testLedger(t)
	l.maxIssued, l.maxAccounts = 4, 3
	a, b := Account{'a'}, Account{'b'}
	var fps [][32]byte
	for i := range 6 {
		fps = append(fps, [32]byte{byte(i + 1)})
	}
	if err := l.recordIssued(ctx, fps[:3], a); err != nil {
		t.Fatal(err)
	}
	if err := l.recordIssued(ctx, fps[2:], b); err != nil {
		t.Fatal(err)
	}
	for i, fp := range fps {
		got, ok, err := l.issuer(ctx, fp)
		want := map[int]Account{2: a, 3: b, 4: b, 5: b}[i]
		if err != nil || ok != (i >= 2) || got != want {
			t.Errorf("item %d: %x %v %v, want %x", i, got[:1], ok, err, want[:1])
		}
	}
	for _, acct := range []Account{a, b, a} {
		if _, err := l.accounts(ctx, "s1", acct); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := l.accounts(ctx, "s2", a); err != nil || len(got) != 1 {
		t.Fatalf("s2: %v %v", got, err)
	}
	if got, err := l.accounts(ctx, "s3", b); err != nil || len(got) != 1 {
		t.Fatalf("s3: %v %v", got, err)
	}
	// Four pairs were written under a bound of three: s1's first went.
	if got, err := l.sessionAccounts(ctx, "s1"); err != nil || len(got) != 1 || got[0] != b {
		t.Fatalf("s1 after eviction: %v %v", got, err)
	}
}

// TestLedgerUnavailable: when continuity.db cannot be read the request is
// not sent and the client gets a named 503, not a guess.
func TestLedgerUnavailable(t *testing.T) {
	got := make(chan seen, 4)
	up := echoUpstream(t, got, func(w http.ResponseWriter, r *http.Request) {})
	p, px := newTestProxy(t, up.URL, "")
	p.ledger.db.Close()
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/v1/responses",
		bytes.NewReader([]byte(`{"model":"m","prompt_cache_key":"s","input":[{"role":"user","content":"hi"}]}`)))
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), diag.StorageUnavailable) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	select {
	case s := <-got:
		t.Fatalf("the upstream received %s", s.path)
	default:
	}
}

// TestIssuersRememberUnknown: an item the ledger does not know is asked
// about once per run — memory answers after that — and one recorded later
// in this run is known from then on.
func TestIssuersRememberUnknown(t *testing.T) {
	ctx := context.Background()
	l := testLedger(t)
	is := newIssuers(l)
	fp := [32]byte{7}
	if _, known, err := is.issuer(ctx, fp); known || err != nil {
		t.Fatalf("a new item: known %v, %v", known, err)
	}
	l.db.Close() // memory must answer now, not the ledger
	if _, known, err := is.issuer(ctx, fp); known || err != nil {
		t.Fatalf("asked again: known %v, %v", known, err)
	}
	is.record(fp, Account{'a'})
	if a, known, err := is.issuer(ctx, fp); !known || err != nil || a != (Account{'a'}) {
		t.Fatalf("after record: %x %v %v", a[:1], known, err)
	}
	if _, _, err := is.issuer(ctx, [32]byte{8}); !diag.Has(err, diag.StorageUnavailable) {
		t.Fatalf("another item with the ledger closed: %v", err)
	}
}
