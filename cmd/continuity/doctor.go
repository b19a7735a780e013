package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/continuity-dev/continuity/sqlstore"
)

// doctor collects the checks' lines; every problem carries its fix.
type doctor struct{ problems int }

func (d *doctor) ok(format string, a ...any) { fmt.Printf("ok       "+format+"\n", a...) }
func (d *doctor) note(format string, a ...any) {
	fmt.Printf("-        "+format+"\n", a...)
}
func (d *doctor) problem(fix, format string, a ...any) {
	d.problems++
	fmt.Printf("PROBLEM  "+format+"\n         fix: %s\n", append(a, fix)...)
}

// doctorCmd runs `continuity doctor`: what stands between this machine
// and a client working through the proxy, each problem with the command
// that fixes it; the exit status is 1 when there is any.
func doctorCmd(args []string) int {
	c := newCommand("doctor")
	dataDir := c.dataDir("data directory (default: the user state directory's continuity/)")
	if code, ok := c.parse(args, 0); !ok {
		return code
	}
	dir := dataDir()
	d := &doctor{}
	d.ok("%s (%s/%s)", version(), runtime.GOOS, runtime.GOARCH)
	usable := d.checkDataDir(dir)
	if usable {
		d.checkDatabase(dir)
	}
	rec, running := d.checkProxy(dir, usable)
	d.checkUpstreams(dir, rec)
	d.checkClients(dir, rec, running)
	if d.problems > 0 {
		fmt.Printf("%d problem(s) found\n", d.problems)
		return 1
	}
	fmt.Println("no problems found")
	return 0
}

// checkDataDir: the directory exists (or can be made) and takes a write.
func (d *doctor) checkDataDir(dir string) bool {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.note("data directory %s does not exist yet; the first continuity proxy or run creates it", dir)
		return false
	case err != nil:
		d.problem("check the path, or use another with --data-dir", "data directory %s: %v", dir, err)
		return false
	case !info.IsDir():
		d.problem("move the file aside (mv "+shellArg(dir)+" "+shellArg(dir)+".old) or use another --data-dir",
			"data directory %s is not a directory", dir)
		return false
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		d.problem("chmod u+rwx "+shellArg(dir), "data directory %s is not writable: %v", dir, err)
		return false
	}
	f.Close()
	os.Remove(f.Name())
	d.ok("data directory %s is writable", dir)
	return true
}

// checkDatabase runs SQLite's integrity_check on continuity.db, read-only.
func (d *doctor) checkDatabase(dir string) {
	path := filepath.Join(dir, sqlstore.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		d.note("database %s does not exist yet; the proxy creates it", path)
		return
	}
	fix := "stop the proxy, then move the database aside: mv " + shellArg(path) + " " + shellArg(path+".corrupt") +
		" (a new one starts empty: reasoning whose issuer it recorded is then omitted on the first switched request)"
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		d.problem(fix, "database %s: %v", path, err)
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		d.problem(fix, "database %s is not sound: %v", path, err)
		return
	}
	defer rows.Close()
	var found []string
	for rows.Next() && len(found) < 5 {
		var line string
		if err := rows.Scan(&line); err != nil {
			break
		}
		found = append(found, line)
	}
	if err := rows.Err(); err != nil {
		d.problem(fix, "database %s is not sound: %v", path, err)
		return
	}
	if len(found) != 1 || found[0] != "ok" {
		d.problem(fix, "database %s is not sound: %s", path, strings.Join(found, "; "))
		return
	}
	d.ok("database %s passes integrity_check", path)
}
