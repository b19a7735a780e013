package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/continuity-dev/continuity/proxy"
	"github.com/continuity-dev/continuity/settings"
	"github.com/continuity-dev/continuity/sqlstore"
)

// policyCmd runs `continuity policy`: show or set a session's
// visible-history continuation policy, or set the new-session default, in
// the embedded settings store the proxy and the plugin share. What it
// prints is what a proxy on the data directory applies: resolved with the
// proxy's own birth evidence (when a proxy first saw the session, from
// the ledger), as the status page shows it.
//
//	continuity policy [--data-dir DIR]                   (lists the sessions)
//	continuity policy [--data-dir DIR] SESSION           (prints its policy)
//	continuity policy [--data-dir DIR] [--create] SESSION on|off|default
//	continuity policy [--data-dir DIR] --default on|off
func policyCmd(args []string) int {
	c := newCommand("policy")
	dataDir := c.dataDir("data directory (default: the user state directory's continuity/)")
	def := c.String("default", "", "set the new-session default: on or off")
	create := c.Bool("create", false, "set the policy of a session no proxy has seen (the plugin's or pi's, or one not started yet)")
	if code, ok := c.parse(args, 2); !ok {
		return code
	}
	dir := dataDir()
	policy, err := openPolicy(dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	ctx := context.Background()
	if *def != "" {
		if c.NArg() > 0 || (*def != "on" && *def != "off") {
			return c.fail(2, "usage: continuity policy --default on|off")
		}
		if err := proxy.SetDefault(ctx, policy, *def == "on"); err != nil {
			return c.fail(1, "%v", err)
		}
		fmt.Printf("new sessions: %s (shared: the plugin, pi and every proxy on this data directory)\n", *def)
		return 0
	}
	db, err := sqlstore.Open(dir)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	defer db.Close()
	// A key the proxy uses through its digest (too long, control or
	// format characters) names the same session when pasted whole.
	session := proxy.SessionID(c.Arg(0))
	switch c.NArg() {
	case 0:
		return listPolicies(c, ctx, db, policy)
	case 1:
		k, ok, err := proxy.KnownSession(ctx, db, policy, session)
		if err != nil {
			return c.fail(1, "%v", err)
		}
		if !ok {
			res, err := policy.Resolve(ctx, session, nil)
			if err != nil {
				return c.fail(1, "%v", err)
			}
			fmt.Printf("%s: %s (%s; no proxy on this data directory has seen it)\n", proxy.QuoteSession(session), onOff(res.Enabled), res.Source)
			return 0
		}
		fmt.Printf("%s: %s (%s)\n", k.ID, k.Policy, k.Source)
		return 0
	}
	state := c.Arg(1)
	var enabled *bool
	switch state {
	case "on", "off":
		enabled = new(state == "on")
	case "default":
	default:
		return c.fail(2, "the policy must be on, off or default, not %q", state)
	}
	k, seen, err := proxy.KnownSession(ctx, db, policy, session)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	if !seen && !hasOwnRow(ctx, policy, session) && !*create {
		return c.fail(2, "UNKNOWN_SESSION: no proxy on this data directory has seen session %s and it has no policy of its own; `continuity policy` lists the sessions seen (check the spelling), or pass --create to set it anyway (a session of the plugin or pi, or one not started yet)", proxy.QuoteSession(session))
	}
	if err := proxy.SetSession(ctx, policy, session, k.FirstSeen, enabled); err != nil {
		return c.fail(1, "%v", err)
	}
	if !seen {
		fmt.Printf("%s: %s\n", session, state)
		return 0
	}
	k, _, err = proxy.KnownSession(ctx, db, policy, session)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Printf("%s: %s (%s)\n", k.ID, k.Policy, k.Source)
	return 0
}

// listPolicies prints the sessions a proxy on the data directory has seen,
// most recent first, with the policy applied and its source, as the page
// lists them.
func listPolicies(c command, ctx context.Context, db *sql.DB, policy *settings.Policy) int {
	known, err := proxy.KnownSessions(ctx, db, policy)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	d, err := policy.Defaults(ctx)
	if err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Printf("new sessions: %s (shared: the plugin, pi and every proxy on this data directory)\n", onOff(d.Enabled))
	if len(known) == 0 {
		fmt.Println("no proxy on this data directory has seen a session yet")
		return 0
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tPOLICY\tSOURCE\tCLIENT\tLAST SEEN")
	for _, k := range known {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", proxy.QuoteSession(k.ID), k.Policy, k.Source, orDash(k.Client),
			time.UnixMilli(k.LastSeen).Local().Format("2006-01-02 15:04:05"))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(1, "%v", err)
	}
	return 0
}

// hasOwnRow reports whether session has a policy row of its own, which a
// front (the plugin, pi, an earlier command) wrote.
func hasOwnRow(ctx context.Context, policy *settings.Policy, session string) bool {
	res, err := policy.Resolve(ctx, session, nil)
	return err == nil && res.Source == settings.SourceSession
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
