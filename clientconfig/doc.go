// Package clientconfig points the configuration files of the clients the
// proxy serves — Codex CLI's config.toml, opencode's opencode.json(c) and
// pi's models.json — at continuity's proxy, and takes that back exactly.
//
// An edit changes only the few values it owns (a provider's base URL, the
// provider Codex uses) and splices them into the file's own bytes, so every
// other key, comment, blank line and the file's line endings stay as the
// person wrote them. The first edit saves the file as it was beside it
// (FILE.continuity-backup) with a record of what continuity wrote
// (FILE.continuity-undo); Undo restores those bytes, or removes the file
// when continuity created it, and refuses when the file changed since, so
// an undo never loses a person's later edits unless told to.
package clientconfig
