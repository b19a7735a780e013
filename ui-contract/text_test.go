package uicontract

import "testing"

func TestTextFillsPlaceholders(t *testing.T) {
	s, err := Text("en", "notice.filtered", map[string]string{"items": "2", "codeUnits": "32,094"})
	if err != nil {
		t.Fatal(err)
	}
	if s == "" || contains(s, "{items}") || !contains(s, "2") || !contains(s, "32,094") {
		t.Fatalf("got %q", s)
	}
	if _, err := Text("en", "no.such.key", nil); err == nil {
		t.Fatal("an unknown key must be an error")
	}
	if _, err := Text("xx", "notice.filtered", nil); err == nil {
		t.Fatal("an unknown locale must be an error")
	}
	if zh, err := Text("zh-CN", "notice.filtered", map[string]string{"items": "2", "codeUnits": "9"}); err != nil || zh == s {
		t.Fatalf("zh-CN: %q %v", zh, err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
