package main

import (
	"errors"
	"fmt"

	"github.com/continuity-dev/continuity/proxy"
)

// pageCmd runs `continuity page`: print the status page's address with its
// key, as the proxy last started on the data directory serves it (the key
// is kept there, so the address stays the same across restarts).
func pageCmd(args []string) int {
	c := newCommand("page")
	dataDir := c.dataDir("data directory (default: the user state directory's continuity/)")
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	addr, err := proxy.PageAddress(dataDir())
	if errors.Is(err, proxy.ErrNoPage) {
		return c.fail(1, "%v: start one with `continuity proxy --upstream URL --data-dir %s`, and its page is at the address it prints", err, shellArg(dataDir()))
	}
	if err != nil {
		return c.fail(1, "%v", err)
	}
	fmt.Println(addr)
	return 0
}
