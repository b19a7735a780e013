package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"

	"github.com/continuity-dev/continuity/clientconfig"
)

// configureCmd runs `continuity configure CLIENT`: it points the client's
// own configuration file at the proxy, or with --undo puts the file back.
func configureCmd(args []string) int {
	c := newCommand("configure")
	proxyURL := c.String("proxy", "http://"+defaultListen, "the proxy's address the client is given (its base URL is this plus /v1)")
	envKey := c.String("env-key", "", "codex: the environment variable holding the API key (default: Codex's own sign-in, requires_openai_auth)")
	provider := c.String("provider", "openai", "opencode, pi: the provider whose base URL moves to the proxy")
	file := c.String("config", "", "the configuration file to edit (default: the client's own, see below)")
	dryRun := c.Bool("dry-run", false, "print the change as a diff and write nothing")
	undo := c.Bool("undo", false, "put the file back exactly as it was before continuity configure changed it")
	force := c.Bool("force", false, "with --undo: restore even though the file changed since continuity wrote it")
	client, code, ok := parseWithOne(c, args, "a client: codex, opencode or pi")
	if !ok {
		return code
	}
	cl, found := clientconfig.Lookup(client)
	if !found {
		return c.fail(2, "unknown client %q: codex, opencode or pi", client)
	}
	if u, err := url.Parse(*proxyURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c.fail(2, "--proxy must be an http URL such as http://%s", defaultListen)
	}
	path := *file
	if path == "" {
		path = cl.Path(clientconfig.OSEnv())
	}
	if *undo {
		existed, err := clientconfig.Undo(path, *force)
		switch {
		case errors.Is(err, clientconfig.ErrChangedSince):
			return c.fail(1, "%v; to restore anyway: continuity configure --undo --force %s", err, client)
		case err != nil:
			return c.fail(1, "%v", err)
		case existed:
			fmt.Printf("restored %s as it was before continuity configure\n", path)
		default:
			fmt.Printf("removed %s, which continuity configure had created\n", path)
		}
		return 0
	}
	s := clientconfig.Settings{ProxyURL: *proxyURL, EnvKey: *envKey, Provider: *provider}
	ch, err := clientconfig.Plan(cl, path, s)
	if err != nil {
		return c.fail(1, "%v; the file was left as it is", err)
	}
	if !ch.Changed() {
		fmt.Printf("%s already sends %s's requests to %s; nothing to change\n", path, client, s.BaseURL())
		return 0
	}
	if *dryRun {
		fmt.Print(ch.Diff())
		return 0
	}
	if err := ch.Apply(); err != nil {
		return c.fail(1, "writing %s: %v", path, err)
	}
	fmt.Printf("%s now sends %s's requests to %s (%s)\n", path, client, s.BaseURL(), cl.Setting(s))
	if ch.Existed {
		fmt.Printf("the file as it was: %s\n", path+clientconfig.BackupSuffix)
	}
	undoArgs := client
	if *file != "" {
		undoArgs = "--config " + shellArg(*file) + " " + client
	}
	fmt.Printf("undo: continuity configure --undo %s\nnext: start the proxy, e.g. continuity proxy --upstream https://api.openai.com\n", undoArgs)
	return 0
}

// parseWithOne parses flags on either side of one required positional
// argument (`configure --dry-run codex` and `configure codex --dry-run`).
func parseWithOne(c command, args []string, what string) (arg string, code int, ok bool) {
	if err := c.Parse(args); errors.Is(err, flag.ErrHelp) {
		return "", 0, false
	} else if err != nil {
		return "", 2, false
	}
	if c.NArg() == 0 {
		return "", c.fail(2, "missing %s", what), false
	}
	arg = c.Arg(0)
	if code, ok := c.parse(c.Args()[1:], 0); !ok {
		return "", code, false
	}
	return arg, 0, true
}
