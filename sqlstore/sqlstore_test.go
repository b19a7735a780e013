package sqlstore

import (
	"context"
	"testing"
)

func TestMigrateRunsEachStepOnce(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	steps := []string{
		`CREATE TABLE a (x INTEGER)`,
		`CREATE TABLE b (y INTEGER)`,
	}
	for i := 0; i < 2; i++ {
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := Migrate(ctx, db, "test", steps); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		var v int
		if err := db.QueryRow(`SELECT version FROM schema_migrations WHERE component='test'`).Scan(&v); err != nil || v != 2 {
			t.Fatalf("version = %d, %v", v, err)
		}
		var mode string
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		db.Close()
	}
	db, _ := Open(dir)
	defer db.Close()
	if err := Migrate(ctx, db, "test", steps[:1]); err == nil {
		t.Fatal("an older binary must refuse a newer schema")
	}
}
