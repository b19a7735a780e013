package boundary

import (
	"strings"

	"github.com/tidwall/gjson"
)

// A failed approach is residue once the agent has moved on from it. Exact
// arguments (callSubject) say which call a witness is, but an agent that
// fails rarely retries the same bytes: it changes a flag, a path spelling,
// an option. So a failed tool call is superseded by any later result —
// failed or succeeded — of an attempt at the same target (callTarget), and
// a success is still superseded only by the same call again, because two
// successful calls at one target with different arguments are two
// witnesses.

// targetKeys are the argument members that name what a tool acts on, in
// the order they are preferred.
var targetKeys = []string{"path", "file_path", "filePath", "file", "filename", "target", "test", "package", "url", "uri", "query"}

// commandKeys are the argument members that hold a shell command line.
var commandKeys = []string{"command", "cmd", "script"}

// maxTargetWords bounds the words a command's target keeps.
const maxTargetWords = 6

// callTarget names what a tool call acts on, for supersession of failed
// attempts: the tool and, from its JSON arguments, the first of
// targetKeys that is a string, or the command's target (commandTarget);
// without either, the tool alone. Arguments that are not a JSON object
// leave the tool alone too.
func callTarget(name, args string) string {
	if !gjson.Valid(args) {
		return name
	}
	obj := gjson.Parse(args)
	if !obj.IsObject() {
		return name
	}
	for _, k := range commandKeys {
		if v := obj.Get(k); v.Type == gjson.String {
			if t := commandTarget(v.Str); t != "" {
				return bounded(name+" "+t, 256)
			}
		}
	}
	for _, k := range targetKeys {
		if v := obj.Get(k); v.Type == gjson.String && strings.TrimSpace(v.Str) != "" {
			return bounded(name+" "+oneLine(v.Str), 256)
		}
	}
	return name
}

// commandTarget is a command line's target: its first command (up to a
// pipe, `&&`, `||`, `;` or redirection), without environment assignments,
// flags or a flag's value (a word right after a flag that does not look
// like a path), at most maxTargetWords words. So "go test -run TestX
// ./parse/..." and "go test -count=1 ./parse/..." are both "go test
// ./parse/...", while "go test ./lex/..." is another target.
func commandTarget(cmd string) string {
	var words []string
	afterFlag := false
	for i, w := range strings.Fields(cmd) {
		if w == "|" || w == "&&" || w == "||" || w == ";" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "2>") {
			break
		}
		cut := strings.TrimRight(w, ";")
		switch {
		case len(words) == 0 && i < 8 && strings.Contains(cut, "=") && !strings.HasPrefix(cut, "-"):
			continue // FOO=bar before the program
		case strings.HasPrefix(cut, "-"):
			afterFlag = !strings.Contains(cut, "=")
			continue
		case afterFlag && !pathLike(cut):
			afterFlag = false
			continue
		}
		afterFlag = false
		if cut != "" {
			words = append(words, cut)
		}
		if len(words) == maxTargetWords || cut != w {
			break
		}
	}
	return strings.Join(words, " ")
}

// pathLike reports whether a word reads as a path or a package pattern.
func pathLike(w string) bool {
	return strings.ContainsAny(w, "/\\") || strings.HasPrefix(w, ".") || strings.HasSuffix(w, "...")
}

// attemptKey is the key under which a failed attempt is superseded by a
// later attempt at the same target: tool errors and successful results
// that have a target.
func (it Item) attemptKey() string {
	if it.Target == "" || it.Kind != KindError && it.Kind != KindToolResult {
		return ""
	}
	return "attempt\x00" + it.Target
}
