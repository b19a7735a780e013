// Package boundary owns managed context (docs/design.md §4): the
// originating-task pin, the classification of session events into stable and
// swappable state, the seven-step APPEND-or-RESEED procedure run at every
// context boundary, the decision records it persists, and the positive
// current-state query a RESEED offers to session continuation as its
// projection. It serves the pin_task tool, and Decided answers the
// continuity.boundary Remote for the plugin's method table.
//
// # The pin
//
// A pin is the identity of the query a session answers: the exact task text
// and the event id (host seq) of the message that stated it, addressed by
// Digest, a SHA-256 over both. By default it is the session's first user
// message that is not a compaction checkpoint, taken only when the service
// has seen the session from its start (the session/created event, seq 0 or 1, or
// a re-read through hostapi.Sessions); a mid-session view never yields a
// default pin, because that would infer the task from a fragment. When the
// user replaces the task the agent restates it with pin_task {text, reason};
// the next boundary then reseeds with reason task_changed. Pins are stored
// in SQLite and verified on every read (digest recomputed, and a default pin
// compared with its event when that event is in view). A missing or
// non-verifying pin yields RESEED with reason pin_missing or pin_changed and
// an unrecoverable pin: the record says so and no projection is offered.
//
// # Classification rules
//
// Observe turns each event into items {kind, subject, class}. The rules are
// mechanical; nothing is read from prose except the text itself.
//
//	event             condition                                    kind            class
//	user/message      a compaction checkpoint (either spelling)    checkpoint      stable (subject compactionId; shadows the range its surfaceOp replaces)
//	user/message      source.kind not "user" (injected context)    injected        swappable (costs tokens, never a request)
//	user/message      the pin's event (by default the first prompt) task           stable (the pin)
//	user/message      any other person's prompt                    request         swappable (the latest after the pin is carried as the current request)
//	                  a later prompt that narrows or negates       + constraint    stable (subject "person"; prompt.go, intent.go)
//	                  a later prompt that replaces the task        request         the next boundary pins it (replacement_message)
//	todo/write        DSH's todo list {todos|items: [{id?, content, status}]} plan swappable singleton; the current one is kept and traced to the pin (plan.go)
//	assistant/message text (DSH's message.content text blocks)     narration       swappable
//	                  the final answer of a completed turn whose   outcome         stable (one per turn; outcome.go)
//	                  tool results succeeded
//	assistant/message data.annotations[i].kind == "constraint"     constraint      stable
//	                  "decision"                                   decision        stable
//	                  "effect"                                     effect          stable
//	                  "next_action"                                next_action     stable
//	                  "plan"                                       plan            swappable
//	                  "hypothesis"                                 hypothesis      swappable
//	                  "failed_approach"                            failed_approach swappable
//	                  any other kind                               narration       swappable
//	tool/call         {callId, name, arguments}                    —               names the result that answers it
//	tool/result       DSH's {message, error?}, succeeded           tool_result     stable witness (subject: the call's tool and exact arguments)
//	                  DSH's {message, error?}, failed              error           swappable (same subject)
//	tool/result       data.kind "test"|"build", passed true        test|build      stable witness
//	                  data.kind "test"|"build", otherwise          test|build      swappable (the current failure)
//	                  data.kind "effect" or "checkpoint", !isError effect|checkpoint stable
//	                  data.isError without a known kind            error           swappable (subject data.name)
//	                  anything else                                result          swappable (subject data.name)
//	usage             {inputTokens, contextWindow}                 —               context pressure when inputTokens ≥ PressureRatio × contextWindow
//	assistant/message DSH's data.usage                             —               context pressure when inputTokens + cacheReadTokens + cacheWriteTokens ≥ PressureRatio × the window
//	request/context   DSH's data.contextWindow (the route changed) —               the window usage is read against; presses at once when the tokens last read reach the ratio of the new window
//	turn/*, step/*, compaction/*, others                           —               no item
//
// A compaction checkpoint removes from the model-visible view only the
// events its surfaceOp replaces (format 0 {op:"replace", start, end},
// format 4 {op:"replace", startSeq, endSeq}); later events stay visible. A
// checkpoint that names no range replaces everything before it.
//
// DSH's usage counts are disjoint (inputTokens is only the uncached part),
// so what the model read is their sum; a decision's numbers.inputTokens is
// that sum and numbers.contextWindow the latest request/context window.
//
// Text read: user/message text (dshevent.Text: content text blocks,
// data.text, or data.content as a string); assistant/message data.text and
// data.annotations [{kind, subject?, text}]; tool/result data.callId,
// data.isError, data.name, data.kind, data.subject, data.passed,
// data.summary, and data.output only for its size (and its first line when
// an error has no summary). Unreadable data is counted, never guessed at.
//
// # Supersession
//
// A later item with the same supersession key supersedes an earlier one:
// test and build results by (kind, subject), whether passed or failed, so a
// fresh run of the same package replaces the old result; constraints,
// decisions, effects and hypotheses by (kind, subject) when the subject is
// not empty; tool errors and results by their subject (for DSH's results
// the tool and its exact arguments, so an error followed by a success of
// the same call is residue), and a tool error also by the next later
// attempt at the same target (target.go: the tool and what it acts on), so
// failed approaches with changing arguments are residue too; and
// next_action, plan, request and checkpoint are singletons, the latest one
// is current. Each turn's outcome is its own witness.
// Superseded items are residue and are dropped. Items before the pin's
// event answer an earlier query and are dropped as before_pin. A current
// swappable item whose subject is the next action's subject (a failing
// test, a tool error or result, a hypothesis) is kept as state the next
// action needs; every other swappable item is dropped.
//
// When no event states a next action (hosts that do not annotate, DSH
// among them), it is derived and names its event: answer the current
// request, or carry out the pinned task; a tool error nothing superseded is
// then kept as state that action needs.
//
// # How agents state stable things
//
// Classification reads structure, never prose. An agent (or the host on its
// behalf) marks what must survive as annotations on assistant/message:
// {kind: "constraint"|"decision"|"effect"|"next_action"|"plan"|"hypothesis"|
// "failed_approach", subject, text}. Tools that produce witnesses say so on
// tool/result: {kind: "test"|"build", subject: "<package or target>", passed}
// or {kind: "effect"|"checkpoint", subject}, with an optional one-line
// summary. A user's constraint stated in prose survives only when the agent
// restates it as a constraint annotation; plain text is narration, with
// one mechanical exception: the text of a turn's last assistant/message
// that calls no tool, when the turn ended "completed", had a successful
// tool result and no call (tool and arguments) or test whose latest result
// in the turn failed, is the turn's confirmed outcome: narration is
// swappable, but an adjudicated result the witnesses back is stable. The
// query lists it among the confirmed effects.
//
// # The procedure
//
// Decide evaluates, in order, and the first rule that applies decides:
//
//  1. pin missing → RESEED pin_missing; pin not verifying → RESEED
//     pin_changed; pin differs from the previous decision's → RESEED
//     task_changed (step 1);
//  2. durable witnesses are read from the store, independent of the view,
//     and superseded residue is removed (steps 2–3);
//  3. trigger compaction_start → RESEED compaction_threatens_pin; usage over
//     the ratio or trigger context_pressure → RESEED context_pressure; stale
//     tokens (superseded items, failed approaches) above ResidueRatio × kept
//     tokens → RESEED residue_dominates (seed §5's sufficient conditions);
//  4. no new current stable item since the previous decision → RESEED
//     no_new_witness (step 4);
//  5. retained tokens ≤ reconstruction tokens → APPEND task_sharpened (or
//     task_established when the new item is the pin itself); otherwise
//     RESEED reconstruction_cheaper (steps 5–6).
//
// Every RESEED with a pin builds the positive query (task verbatim,
// constraints, decisions, the plan traced to the pin, confirmed effects —
// every current witness and turn outcome since the pin —, the current
// state the next action needs, the current request, the next action),
// restates the person's negations as positive scope (restatePositive),
// rewrites negated residue away (RewritePositive), and verifies it by
// parsing it back alone (step 7, query.go and verify.go): the pin digest
// must recompute from the recovered text and event id, the next action,
// the current request's text, every confirmed effect's event and the
// plan's pin must be recoverable, no dismissal or negated residue may
// remain, and under pressure or compaction the query must be smaller than
// the retained history. A complete reseed offers Projection (continue_session
// arguments with reason topic_change, phase_change or context_pressure); an
// incomplete one lists its problems and offers nothing.
//
// # Cost
//
// Tokens are estimated as one per four characters (EstimateTokens); only
// comparisons between such estimates decide anything. Retained tokens are
// what the model-visible history since the last checkpoint costs;
// reconstruction tokens are the built query plus Options.ReseedOverhead, the
// fixed price of starting over (lineage block, cold prompt cache), so that
// small histories are not reseeded to save a handful of tokens.
package boundary
