package continuation

// evTodoWrite is DSH's own plan event: the agent's todo list, written
// whole each time (docs/protocol.md §13.4). continue_session reads it as
// the session's plan exactly like a host's plan/update: the latest one is
// the plan, carried with its exact data; its revision is data.revision
// when present, otherwise its seq (planRevision).
const evTodoWrite = "todo/write"

// isPlanEvent reports whether an event of type typ states the session's
// plan.
func isPlanEvent(typ string) bool { return typ == evPlanUpdate || typ == evTodoWrite }
