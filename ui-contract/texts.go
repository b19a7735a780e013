package uicontract

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

var (
	textsMu sync.Mutex
	texts   = map[string]map[string]string{}
)

// Text renders the user-facing text with this key in locale ("en",
// "zh-CN"), filling {name} placeholders from params. It is what a client
// shows for a view's textKey; unknown keys and locales are errors, never a
// silent fallback.
func Text(locale, key string, params map[string]string) (string, error) {
	textsMu.Lock()
	m, ok := texts[locale]
	if !ok {
		b, err := files.ReadFile("texts/" + locale + ".json")
		if err != nil {
			textsMu.Unlock()
			return "", fmt.Errorf("ui-contract: no texts for locale %q", locale)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			textsMu.Unlock()
			return "", fmt.Errorf("ui-contract: texts for %q: %w", locale, err)
		}
		texts[locale] = m
	}
	textsMu.Unlock()
	s, ok := m[key]
	if !ok {
		return "", fmt.Errorf("ui-contract: no text %q in %s", key, locale)
	}
	for k, v := range params {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s, nil
}
