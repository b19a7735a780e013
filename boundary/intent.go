package boundary

import (
	"regexp"
	"strings"
)

// Intent is what a person's prompt after the pin does to the query
// (seed 002 §2 and §4): replace the task (a new query: the pin changes),
// narrow it (a constraint that sharpens the same pin: APPEND), dismiss
// something from it (a negation, restated as positive scope), or ask for
// the next piece of work on it (a follow-up: the current request).
type Intent string

// The four intents ClassifyPrompt tells apart.
const (
	IntentReplacement Intent = "replacement"
	IntentNarrowing   Intent = "narrowing"
	IntentNegation    Intent = "negation"
	IntentFollowUp    Intent = "follow_up"
)

// The classifier reads only the person's own words, with rules a reader
// can check (testdata/intent_corpus.tsv holds the labelled messages and
// TestIntentCorpus the precision and recall they reach). Order decides:
//
//  1. replacement: an explicit change of task ("new task", "scratch that",
//     "switch to", "stop working on", "change of plan", 新任务, 换个任务,
//     …), or a dismissal of something that is not residue ("forget the
//     login test", 别管登录测试) together with new work ("instead", or a
//     clause that starts with a work verb: "write the release notes",
//     改成写发布说明);
//  2. negation: a dismissal ("don't worry about", "ignore", "never mind",
//     "skip", 不用管, 忽略, …) without new work, or of residue (errors,
//     failures, warnings, 报错, 失败, 警告, …);
//  3. narrowing: a constraint on the work ("only", "make sure", "don't
//     change", "without touching", "use X instead of Y", 只, 必须, 不要改,
//     …);
//  4. anything else is a follow-up.
//
// A false replacement costs the session its query, so the rules for it are
// the strictest; a missed one is still caught by pin_task, which stays
// authoritative (the agent's restatement always wins).

// explicitReplacement are phrases that replace the task by themselves.
var explicitReplacement = regexp.MustCompile(`(?i)\b(?:new task|(?:a |an )?(?:different|another|other) task|change of plans?|plans? (?:have |has )?changed|scratch that|forget (?:all|everything)(?: of)?(?: that| this| above| so far)?|switch(?:ing)? (?:gears|over to|to working on|tasks?)|let'?s (?:switch|move on|pivot) to|pivot to|stop (?:working on|doing|what you(?:'re| are) doing)|start over|(?:drop|abandon|scrap|shelve|park) (?:the|this|that|your) [^.;!?\n]{0,40}?(?:task|work|feature|refactor|migration|effort|idea|plan|project)|(?:we|i) (?:no longer|don'?t) need (?:the|this|that) [^.;!?\n]{0,40}?(?:anymore|any more|after all)|something else entirely|instead,? (?:i want|i need|let'?s|please|you should)|rather than (?:that|this|the \w+),)`)

// dismissalCue finds a dismissal and its object.
var dismissalCue = regexp.MustCompile(`(?i)\b(?:ignore|ignoring|disregard|forget(?: about)?|never ?mind|overlook|pay no attention to|skip|leave out|(?:don'?t|do not|no need to|you don'?t need to) (?:worry|care|bother) (?:about|with))\s+([^.;:!?\n,]+?)(?:\s+(?:and|then|but)\s+|[.;:!?\n,]|$)`)

// insteadCue marks new work that takes the dismissed one's place.
var insteadCue = regexp.MustCompile(`(?i)\b(?:instead|rather)\b`)

// workClause starts a clause that asks for new work.
var workClause = regexp.MustCompile(`(?i)(?:^|[.;!?,]\s*|\band\s+|\bthen\s+)(?:now\s+|please\s+|just\s+|let'?s\s+|can you\s+|could you\s+|i want you to\s+|i need you to\s+)*(?:write|draft|prepare|implement|build|create|add|make|fix|update|refactor|port|migrate|review|investigate|work on|set up|generate|document|rewrite|translate|design|summari[sz]e|compose|research|debug|deploy|optimi[sz]e|plan|focus on|do|start)\b`)

// residueObject reports whether a dismissed object is residue: the current
// error, failure or warning, not a piece of the task.
var residueObject = regexp.MustCompile(`(?i)\b` + residueNouns + `\b|\b(?:flaky|noise|noisy|lint|linter|deprecation|logs?|output)\b|报错|错误|失败|警告|告警|异常|崩溃|日志|输出`)

// narrowingCue is a constraint on the same work.
var narrowingCue = regexp.MustCompile(`(?i)(?:^|[.;!?]\s*|,\s*)(?:please\s+)?(?:only|just (?:the|for|in|on|under|inside))\b|\bonly\b|\bfocus (?:only )?on\b|\blimit (?:it |this |yourself |the changes? )?to\b|\brestrict\b|\bkeep (?:the|it|this|all|them|changes?|every|each)\b|\bmake sure\b|\bbe sure to\b|\bensure\b|\b(?:don'?t|do not|never) (?:change|touch|modify|edit|rename|delete|remove|add|use|break|commit|push|introduce|exceed)\b|\bmust(?: not)?\b|\bwithout (?:changing|touching|breaking|adding|using|removing|renaming)\b|\buse \S+(?: \S+){0,3} (?:instead of|rather than)\b|\bstick (?:to|with)\b|\bleave [^.;!?\n]{1,30} (?:as is|alone|unchanged|as it is)\b|\bshould(?:n'?t| not)? (?:stay|keep|remain|use|be kept)\b|\bno more than\b|\bat most\b|\bstays?\b [^.;!?\n]{0,20}(?:compatible|unchanged|the same)`)

// ClassifyPrompt returns the intent of a person's prompt that follows the
// pinned task (English and Simplified Chinese).
func ClassifyPrompt(text string) Intent {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return IntentFollowUp
	case explicitReplacement.MatchString(t) || zhExplicitReplacement.MatchString(t):
		return IntentReplacement
	}
	if obj, ok := dismissed(t); ok {
		if !residueObject.MatchString(obj) && (insteadCue.MatchString(t) || zhInstead.MatchString(t) || newWorkAfter(t)) {
			return IntentReplacement
		}
		return IntentNegation
	}
	if narrowingCue.MatchString(t) || zhNarrowing.MatchString(t) {
		return IntentNarrowing
	}
	return IntentFollowUp
}

// dismissed returns the object of the first dismissal in t, in either
// language.
func dismissed(t string) (string, bool) {
	if m := dismissalCue.FindStringSubmatch(t); m != nil {
		return m[1], true
	}
	if m := zhDismissal.FindStringSubmatch(t); m != nil {
		return m[1], true
	}
	return "", false
}

// newWorkAfter reports whether, after its dismissal, t asks for new work.
func newWorkAfter(t string) bool {
	if loc := dismissalCue.FindStringIndex(t); loc != nil {
		after := t[loc[1]:]
		if workClause.MatchString(after) {
			return true
		}
	}
	if loc := zhDismissal.FindStringIndex(t); loc != nil && zhWork.MatchString(t[loc[1]:]) {
		return true
	}
	return false
}
