package sqlite

import (
	"database/sql"
	"fmt"
)

// migrations are applied in order, each once; the schema version is the
// number applied. Never edit one that has shipped: add the next.
var migrations = []string{
	1: `
CREATE TABLE rooms (
	id            TEXT PRIMARY KEY,
	variant       TEXT NOT NULL,
	options       TEXT NOT NULL,
	seats         INTEGER NOT NULL,
	rules_version TEXT NOT NULL DEFAULT '',
	created       INTEGER NOT NULL,
	touched       INTEGER NOT NULL,
	version       INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX rooms_touched ON rooms(touched);
CREATE TABLE seats (
	room     TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	seat     INTEGER NOT NULL,
	key_hash BLOB NOT NULL,
	PRIMARY KEY (room, seat)
) STRICT, WITHOUT ROWID;
CREATE TABLE actions (
	room    TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	version INTEGER NOT NULL,
	kind    TEXT NOT NULL,
	seat    INTEGER NOT NULL,
	move    TEXT NOT NULL DEFAULT '',
	at      INTEGER NOT NULL,
	PRIMARY KEY (room, version)
) STRICT, WITHOUT ROWID;
`,
	// 2: the log is written in commit order, not kept sorted by room. With
	// actions keyed by (room, version) every action of a group commit
	// landed on a different leaf page (its room's), so a commit of N
	// appends wrote N pages to the WAL. Now a group's actions share the
	// log's last pages, and each room's head (its version, last action and
	// last action's time) is a row of a small table whose pages many rooms
	// share. A room's actions are found by walking back from its head
	// through prev, each a lookup by seq.
	2: `
CREATE TABLE heads (
	room    TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
	version INTEGER NOT NULL,
	last    INTEGER NOT NULL,
	at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE log (
	seq     INTEGER PRIMARY KEY,
	room    TEXT NOT NULL,
	version INTEGER NOT NULL,
	prev    INTEGER NOT NULL,
	kind    TEXT NOT NULL,
	seat    INTEGER NOT NULL,
	move    TEXT NOT NULL,
	at      INTEGER NOT NULL
) STRICT;
INSERT INTO log(seq, room, version, prev, kind, seat, move, at)
	SELECT n, room, version, COALESCE(LAG(n) OVER (PARTITION BY room ORDER BY version), 0), kind, seat, move, at
	FROM (SELECT ROW_NUMBER() OVER (ORDER BY room, version) AS n, * FROM actions)
	ORDER BY n;
INSERT INTO heads(room, version, last, at)
	SELECT rooms.id, COALESCE(l.version, 0), COALESCE(l.seq, 0), COALESCE(l.at, 0)
	FROM rooms LEFT JOIN (SELECT room, MAX(version) AS version, seq, at FROM log GROUP BY room) AS l ON l.room = rooms.id;
DROP TABLE actions;
`,
	// 3: the heads are moved in the writer's memory and written to the
	// table once a second, not on every commit (see flush); heads_seq is
	// the log's seq the table's heads are complete up to, and Open rolls
	// them forward from the log rows above it.
	3: `
CREATE TABLE heads_seq (seq INTEGER NOT NULL) STRICT;
INSERT INTO heads_seq(seq) SELECT COALESCE(MAX(seq), 0) FROM log;
`,
	// 4: the database arbitrates again. The log gets a unique index on
	// (room, version), so that a second action at a room's version is
	// refused by SQLite itself, whoever writes it, and a trigger refuses an
	// action that does not follow its room's last one (a gap) or names no
	// room; the heads and their checkpoint go (a room's head is read through
	// the index), and so does prev, which only the walk back from a head
	// read. Before it runs, migrate checks that the log holds no version
	// twice (noTwice): it fails then, naming the rows, and changes nothing.
	4: `
CREATE UNIQUE INDEX log_room_version ON log(room, version);
CREATE TRIGGER log_follows BEFORE INSERT ON log
	WHEN NOT EXISTS (SELECT 1 FROM rooms WHERE id = NEW.room)
		OR (NEW.version <> 1 AND NOT EXISTS (SELECT 1 FROM log WHERE room = NEW.room AND version = NEW.version - 1))
	BEGIN SELECT RAISE(ABORT, 'log: not the next version of an existing room'); END;
DROP TABLE heads;
DROP TABLE heads_seq;
ALTER TABLE log DROP COLUMN prev;
`,
}

// before are the checks a migration needs to pass before it runs, in its
// transaction; an error leaves the file as it was.
var before = map[int]func(tx *sql.Tx) error{4: noTwice}

// noTwice fails when the log holds two actions at the same version of a
// room (something only a second writer or a bug could have left, before
// migration 4 made the database refuse them). It drops nothing: which of
// the two a room keeps is for its operator to decide.
func noTwice(tx *sql.Tx) error {
	var pairs int64
	if err := tx.QueryRow(`SELECT COUNT(*) FROM (SELECT 1 FROM log GROUP BY room, version HAVING COUNT(*) > 1)`).Scan(&pairs); err != nil {
		return err
	}
	if pairs == 0 {
		return nil
	}
	var room string
	var version, rows int64
	if err := tx.QueryRow(`SELECT room, version, COUNT(*) FROM log GROUP BY room, version HAVING COUNT(*) > 1
		ORDER BY room, version LIMIT 1`).Scan(&room, &version, &rows); err != nil {
		return err
	}
	return fmt.Errorf("the log holds %d (room, version) pairs more than once (the first: room %q version %d, %d rows; "+
		"SELECT room, version, seq FROM log WHERE (room, version) IN (SELECT room, version FROM log GROUP BY room, version HAVING COUNT(*) > 1) lists them): "+
		"the unique index cannot be made; nothing was changed or dropped, remove the extra rows by hand and start again", pairs, room, version, rows)
}
