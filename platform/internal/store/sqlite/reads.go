package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
)

// Touch implements store.Store.
func (s *Store) Touch(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE rooms SET touched = ? WHERE id = ?`, at.UnixNano(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}

// purgeSQL deletes the rooms whose last touch and last action are both
// before the cutoff (the index on touched finds the candidates, the log's
// index each one's last action); their seats go with them, and Purge then
// deletes their logs.
const purgeSQL = `DELETE FROM rooms WHERE touched < ?1
	AND IFNULL((SELECT at FROM log WHERE room = rooms.id ORDER BY version DESC LIMIT 1), 0) < ?1
	RETURNING id`

// roomSQL reads a room: its version is its last action's, its touch time
// the later of the row's (creation, Touch) and the last action's. The
// rooms.version column of the first schema is no longer written.
const roomSQL = `SELECT variant, options, seats, rules_version, created, touched, IFNULL(l.version, 0), IFNULL(l.at, 0)
	FROM rooms LEFT JOIN log AS l ON l.seq = (SELECT seq FROM log WHERE room = ?1 ORDER BY version DESC LIMIT 1)
	WHERE rooms.id = ?1`

// Purge implements store.Store. Any failure rolls the whole batch back (a
// request of one statement, see request.single).
func (s *Store) Purge(ctx context.Context, cutoff time.Time) ([]string, error) {
	var ids []string
	r := &request{ctx: detach(ctx), res: make(chan error, 1), single: true}
	r.fn = func(tx *sql.Tx) error {
		ids = ids[:0]
		rows, err := tx.Query(purgeSQL, cutoff.UnixNano())
		if err != nil {
			return &fatal{err}
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return &fatal{err}
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return &fatal{err}
		}
		for _, id := range ids {
			if _, err := tx.Exec(`DELETE FROM log WHERE room = ?`, id); err != nil {
				return &fatal{err}
			}
			s.txGone[id] = true
			delete(s.txHeads, id)
		}
		return nil
	}
	err := s.send(ctx, r)
	return ids, err
}

// Room implements store.Store.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	r := store.Room{ID: id}
	var opts string
	var created, touched, at int64
	err := s.r.QueryRowContext(ctx, roomSQL, id).
		Scan(&r.Variant, &opts, &r.Seats, &r.RulesVersion, &created, &touched, &r.Version, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return r, store.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(opts), &r.Options); err != nil {
		return r, fmt.Errorf("room %s options: %w", id, err)
	}
	r.Created, r.Touched = time.Unix(0, created), time.Unix(0, max(touched, at))
	return r, nil
}

// SeatKeys implements store.Store.
func (s *Store) SeatKeys(ctx context.Context, id string) ([]store.SeatKey, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seat, key_hash FROM seats WHERE room = ? ORDER BY seat`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.SeatKey
	for rows.Next() {
		var k store.SeatKey
		if err := rows.Scan(&k.Seat, &k.Hash); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Actions implements store.Store.
func (s *Store) Actions(ctx context.Context, id string, after int64) ([]store.Action, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT version, kind, seat, move, at FROM log WHERE room = ?1 AND version > ?2 ORDER BY version`, id, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Action
	for rows.Next() {
		a := store.Action{Room: id}
		var at int64
		if err := rows.Scan(&a.Version, &a.Kind, &a.Seat, &a.Move, &at); err != nil {
			return nil, err
		}
		a.At = time.Unix(0, at)
		out = append(out, a)
	}
	return out, rows.Err()
}
