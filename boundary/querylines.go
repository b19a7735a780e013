package boundary

import (
	"fmt"
	"strings"
)

// The list lines of a query: each names its event, so a reader of the
// query alone can recall the exact source and step 7 can check the list.

func subjectLine(it Item, text string) string {
	if it.Subject == "" {
		return text
	}
	return it.Subject + ": " + text
}

func effectLine(it Item, text string) string {
	var s string
	switch it.Kind {
	case KindTest, KindBuild:
		s = fmt.Sprintf("%s %s passed (event %d)", it.Kind, it.Subject, it.Seq)
	case KindCheckpoint:
		return fmt.Sprintf("compaction checkpoint %s is recorded at event %d", it.Subject, it.Seq)
	case KindOutcome:
		s = fmt.Sprintf("outcome of a completed turn (event %d)", it.Seq)
	case KindToolResult:
		s = fmt.Sprintf("tool %s succeeded (event %d)", it.Subject, it.Seq)
	default:
		s = fmt.Sprintf("effect %s (event %d)", it.Subject, it.Seq)
	}
	if text != "" {
		s += ": " + text
	}
	return s
}

func neededLine(it Item, text string) string {
	var s string
	switch it.Kind {
	case KindTest, KindBuild:
		s = fmt.Sprintf("%s %s fails (event %d)", it.Kind, it.Subject, it.Seq)
	case KindError:
		s = fmt.Sprintf("tool %s reports an error (event %d)", it.Subject, it.Seq)
	default:
		s = fmt.Sprintf("%s %s (event %d)", strings.ReplaceAll(string(it.Kind), "_", " "), it.Subject, it.Seq)
	}
	if text != "" {
		s += ": " + text
	}
	return s
}
