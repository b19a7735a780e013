package main

import (
	"context"
	"fmt"

	"github.com/continuity-dev/continuity/proxy"
)

// policyCmd runs `continuity policy`: set one session's visible-history
// continuation policy, or the new-session default, in the embedded settings
// store the proxy and the plugin share.
//
//	continuity policy [--data-dir DIR] SESSION on|off|default
//	continuity policy [--data-dir DIR] --default on|off
//	continuity policy [--data-dir DIR] SESSION          (prints it)
func policyCmd(args []string) int {
	c := newCommand("policy")
	dataDir := c.dataDir("data directory (default: the user state directory's continuity/)")
	def := c.String("default", "", "set the new-session default: on or off")
	if code, ok := c.parse(args, 2); !ok {
		return code
	}
	policy, err := openPolicy(dataDir())
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
		fmt.Printf("new sessions: %s\n", *def)
		return 0
	}
	switch c.NArg() {
	case 1:
		res, err := policy.Resolve(ctx, c.Arg(0), nil)
		if err != nil {
			return c.fail(1, "%v", err)
		}
		fmt.Printf("%s: %s (%s)\n", c.Arg(0), onOff(res.Enabled), res.Source)
		return 0
	case 2:
	default:
		return c.fail(2, "usage: continuity policy [--data-dir DIR] SESSION on|off|default, or --default on|off")
	}
	session, state := c.Arg(0), c.Arg(1)
	var enabled *bool
	switch state {
	case "on", "off":
		enabled = new(state == "on")
	case "default":
	default:
		return c.fail(2, "the policy must be on, off or default, not %q", state)
	}
	if err := proxy.SetSession(ctx, policy, session, 0, enabled); err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Printf("%s: %s\n", session, state)
	return 0
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
