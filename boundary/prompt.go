package boundary

import "time"

// withIntent classifies a person's prompt that follows an earlier one
// (ClassifyPrompt) and adds what its intent makes of it to the event's
// items (its request item, from parseUser):
//
//   - a replacement keeps its request item, marked, and the next boundary
//     pins it as the new task (Decide, replacedPin);
//   - a narrowing or a negation is also a constraint the person stated
//     (kind constraint, subject "person", stable): it sharpens the same
//     pin, so the boundary may APPEND it, and it stays in the query after
//     later prompts replace the current request; the query restates a
//     negation as positive scope (restatePositive);
//   - a follow-up is the current request, as every prompt was before.
//
// The constraint costs no tokens of its own: the request item already
// counts the message in the retained history.
func withIntent(items []Item, text string) []Item {
	in := ClassifyPrompt(bounded(text, maxClassifiedText))
	for i := range items {
		if items[i].Kind == KindRequest {
			items[i].Intent = in
			if in == IntentNarrowing || in == IntentNegation {
				c := Item{Seq: items[i].Seq, Index: items[i].Index + 1, Kind: KindConstraint,
					Subject: personSubject, Text: bounded(text, maxAnnotationText), Intent: in}
				c.classify()
				return append(items, c)
			}
		}
	}
	return items
}

// maxClassifiedText bounds the prompt text ClassifyPrompt reads (on the
// read loop): what a person says to change or narrow the task comes first.
const maxClassifiedText = 8192

// ReasonReplacedInWords is the reason a pin taken from a replacement
// message records.
const ReasonReplacedInWords = "the person replaced the task in their own words"

// replacedPin is step 1's reading of the person's words: the latest prompt
// in view that replaces the task and is newer than the current pin becomes
// the pin (its exact text at its event), so the boundary reseeds with
// task_changed. A pin that exists but does not verify is never replaced
// this way: it is reported, not papered over. pin_task stays
// authoritative: it pins the prompt of its turn, so a replacement it
// already restated is not newer than the pin, and a later pin_task
// replaces a pin taken here.
func replacedPin(view []Item, sessionID string, pin *Pin, problem string, now time.Time) *Pin {
	if pin == nil && problem != PinProblemNeverSeen {
		return nil
	}
	inherited := pin != nil && pin.OriginSession != "" && pin.OriginSession != sessionID
	var latest *Item
	for i := range view {
		it := &view[i]
		if it.Kind == KindRequest && it.Intent == IntentReplacement && (pin == nil || inherited || it.Seq > pin.EventID) {
			latest = it
		}
	}
	if latest == nil {
		return nil
	}
	p := NewPin(latest.Seq, latest.Text, SourceReplacement, ReasonReplacedInWords, sessionID, now)
	return &p
}
