package postgres

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// What hosts sharing one database tell each other, on the NOTIFY channel
// Channel, as "KIND ROOM [VERSION]" (a payload is at most 8000 bytes; these
// are a few dozen).
const (
	NoteAction   = 'a' // an action was committed: "a ROOM VERSION"
	NotePresence = 'c' // a seat's connection changed: "c ROOM"
	NotePurged   = 'p' // a room expired and was deleted: "p ROOM"
	// NoteResync is no message: Listen reports it after it (re)connects,
	// since notes sent while it was not listening are lost.
	NoteResync = 'r'
)

// Note is one notification.
type Note struct {
	Kind    byte
	Room    string
	Version int64
}

// ParseNote reads a notification's payload.
func ParseNote(payload string) (Note, error) {
	f := strings.Fields(payload)
	if len(f) < 2 || len(f[0]) != 1 {
		return Note{}, fmt.Errorf("bad note %q", payload)
	}
	n := Note{Kind: f[0][0], Room: f[1]}
	switch {
	case n.Kind == NoteAction && len(f) == 3:
		v, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || v < 1 {
			return Note{}, fmt.Errorf("bad note %q", payload)
		}
		n.Version = v
	case (n.Kind == NotePresence || n.Kind == NotePurged) && len(f) == 2:
	default:
		return Note{}, fmt.Errorf("bad note %q", payload)
	}
	return n, nil
}

// Listen delivers the channel's notes to fn, one at a time, until ctx ends;
// a lost connection is reopened (after a pause) and followed by a
// NoteResync, because what was sent meanwhile is lost. It returns ctx's
// error.
func (s *Store) Listen(ctx context.Context, logger *slog.Logger, fn func(Note)) error {
	pause := 100 * time.Millisecond
	for {
		err := s.listenOnce(ctx, logger, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		logger.Warn("room notifications: connection lost; reconnecting", "err", err, "in", pause)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context, logger *slog.Logger, fn func(Note)) error {
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return err
	}
	fn(Note{Kind: NoteResync})
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		note, err := ParseNote(n.Payload)
		if err != nil {
			logger.Warn("room notifications: ignored", "err", err)
			continue
		}
		fn(note)
	}
}

// Cluster is one host's membership of the hosts sharing the database: its
// liveness (a heartbeat row) and the seats its connections hold.
type Cluster struct {
	s    *Store
	host string
	ttl  time.Duration
	// joined: a heartbeat has recorded this host (Heartbeat is called by
	// one goroutine at a time).
	joined bool

	mu sync.Mutex
	// leases is what this host knows of rooms' leases: held by it (mine)
	// or by another host, until when by this host's clock.
	leases map[string]lease
}

type lease struct {
	mine  bool
	until time.Time
}

// Cluster returns host's membership; a host not seen for ttl is dead, its
// connections no longer count, and the next heartbeat of another host
// removes them.
func (s *Store) Cluster(host string, ttl time.Duration) *Cluster {
	return &Cluster{s: s, host: host, ttl: ttl, leases: map[string]lease{}}
}

// Host is this host's ID.
func (c *Cluster) Host() string { return c.host }

// Heartbeat says this host is alive (the database's clock decides) and
// removes the hosts not seen for the TTL with their connections, telling
// the hosts holding those rooms. rejoined is true when this host had itself
// been removed (it was silent too long, e.g. cut off from the database):
// its connections are gone from the database and must be recorded again.
func (c *Cluster) Heartbeat(ctx context.Context) (rejoined bool, err error) {
	var inserted bool
	err = c.s.pool.QueryRow(ctx, `
WITH me AS (
	INSERT INTO hosts(id, seen) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET seen = now()
	RETURNING xmax = 0 AS inserted
), dead AS (
	DELETE FROM hosts WHERE id <> $1 AND seen < now() - make_interval(secs => $2) RETURNING id
), gone AS (
	DELETE FROM presence WHERE host IN (SELECT id FROM dead) RETURNING room
), w AS (
	DELETE FROM watchers WHERE host IN (SELECT id FROM dead) RETURNING room
), n AS (
	SELECT pg_notify('`+Channel+`', 'c ' || room) FROM (SELECT room FROM gone UNION SELECT room FROM w) g
)
SELECT inserted FROM me WHERE (SELECT count(*) FROM n) >= 0`, c.host, c.ttl.Seconds()).Scan(&inserted)
	if err != nil {
		return false, err
	}
	first := !c.joined
	c.joined = true
	return inserted && !first, nil
}

// Leave removes this host, its connections and its leases (a graceful
// shutdown: the other hosts take its rooms' computer seats over at once).
func (c *Cluster) Leave(ctx context.Context) error {
	_, err := c.s.pool.Exec(ctx, `
WITH me AS (DELETE FROM hosts WHERE id = $1),
l AS (DELETE FROM room_leases WHERE host = $1),
w AS (DELETE FROM watchers WHERE host = $1 RETURNING room),
gone AS (DELETE FROM presence WHERE host = $1 RETURNING room)
SELECT pg_notify('`+Channel+`', 'c ' || room) FROM (SELECT room FROM gone UNION SELECT room FROM w) g`, c.host)
	return err
}

// Connect records that connection conn of this host holds seat of room,
// replacing whichever connection held it (on any host), and tells the
// other hosts.
func (c *Cluster) Connect(ctx context.Context, room string, seat int, conn string) error {
	_, err := c.s.pool.Exec(ctx, `
WITH up AS (
	INSERT INTO presence(room, seat, host, conn) VALUES ($1, $2, $3, $4)
	ON CONFLICT (room, seat) DO UPDATE SET host = excluded.host, conn = excluded.conn RETURNING room
)
SELECT pg_notify('`+Channel+`', 'c ' || room) FROM up`, room, seat, c.host, conn)
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) && pgErr.SQLState() == "23503" { // foreign_key_violation: purged
		return nil
	}
	return err
}

// Disconnect removes conn's hold on seat (if it still holds it) and tells
// the other hosts.
func (c *Cluster) Disconnect(ctx context.Context, room string, seat int, conn string) error {
	_, err := c.s.pool.Exec(ctx, `
WITH d AS (DELETE FROM presence WHERE room = $1 AND seat = $2 AND conn = $3 RETURNING room)
SELECT pg_notify('`+Channel+`', 'c ' || room) FROM d`, room, seat, conn)
	return err
}

// Presence returns the connection holding each connected seat of room, on
// the hosts alive, and how many spectators watch it on the other hosts.
func (c *Cluster) Presence(ctx context.Context, room string) (map[int]string, int, error) {
	rows, err := c.s.pool.Query(ctx, `
SELECT p.seat, p.conn FROM presence p JOIN hosts h ON h.id = p.host
WHERE p.room = $1 AND h.seen >= now() - make_interval(secs => $2)
UNION ALL
SELECT -1, COALESCE(sum(w.n), 0)::text FROM watchers w JOIN hosts h ON h.id = w.host
WHERE w.room = $1 AND w.host <> $3 AND h.seen >= now() - make_interval(secs => $2)`, room, c.ttl.Seconds(), c.host)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := map[int]string{}
	watchers := 0
	for rows.Next() {
		var seat int
		var conn string
		if err := rows.Scan(&seat, &conn); err != nil {
			return nil, 0, err
		}
		if seat < 0 {
			watchers, _ = strconv.Atoi(conn)
			continue
		}
		out[seat] = conn
	}
	return out, watchers, rows.Err()
}

// Watchers records how many spectators watch room on this host and tells
// the other hosts.
func (c *Cluster) Watchers(ctx context.Context, room string, n int) error {
	_, err := c.s.pool.Exec(ctx, `
WITH up AS (
	INSERT INTO watchers(room, host, n) VALUES ($1, $2, $3)
	ON CONFLICT (room, host) DO UPDATE SET n = excluded.n RETURNING room
)
SELECT pg_notify('`+Channel+`', 'c ' || room) FROM up`, room, c.host, n)
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) && pgErr.SQLState() == "23503" { // purged
		return nil
	}
	return err
}

// PutCode makes code the seat's one-time code until expires (only its hash
// is stored), replacing the seat's previous code.
func (c *Cluster) PutCode(ctx context.Context, room string, seat int, code string, expires time.Time) error {
	h := sha256.Sum256([]byte(code))
	_, err := c.s.pool.Exec(ctx, `
INSERT INTO seat_codes(room, seat, code_hash, expires) VALUES ($1, $2, $3, $4)
ON CONFLICT (room, seat) DO UPDATE SET code_hash = excluded.code_hash, expires = excluded.expires`,
		room, seat, h[:], expires.UnixNano())
	return err
}

// TakeCode uses up room's code if it is valid at now: exactly one taker
// wins, whichever host it is on.
func (c *Cluster) TakeCode(ctx context.Context, room, code string, now time.Time) (int, bool, error) {
	h := sha256.Sum256([]byte(code))
	var seat int
	err := c.s.pool.QueryRow(ctx, `
DELETE FROM seat_codes WHERE room = $1 AND code_hash = $2 AND expires > $3 RETURNING seat`,
		room, h[:], now.UnixNano()).Scan(&seat)
	if errors.Is(err, pgx.ErrNoRows) {
		return -1, false, nil
	}
	if err != nil {
		return -1, false, err
	}
	return seat, true, nil
}

// Computer seats and clocks: one host at a time thinks the computer's moves
// of a room, the holder of its lease. A lease lasts the hosts' TTL and is
// renewed with every heartbeat while the room is in the holder's memory; a
// host that dies (or drops the room) lets it lapse, and the next host that
// finds a computer move due takes it. The lease only spares the work of
// thinking twice: the log's version arbitrates the moves themselves, so
// even two hosts that both believed they held it (one paused past its
// lease) never play a version twice.

// RunsComputer tells whether this host holds (or just took) room's lease.
// It asks the database only when what it knows has run out: its own lease
// counts for half the TTL between heartbeats, another host's until it
// expires or for a heartbeat (a third of the TTL), whichever is sooner.
func (c *Cluster) RunsComputer(ctx context.Context, room string) (bool, error) {
	now := time.Now()
	c.mu.Lock()
	l, ok := c.leases[room]
	c.mu.Unlock()
	if ok && now.Before(l.until) {
		return l.mine, nil
	}
	var mine bool
	var left float64
	err := c.s.pool.QueryRow(ctx, `
WITH up AS (
	INSERT INTO room_leases(room, host, expires) VALUES ($1, $2, now() + make_interval(secs => $3))
	ON CONFLICT (room) DO UPDATE SET host = excluded.host, expires = excluded.expires
	WHERE room_leases.host = excluded.host OR room_leases.expires < now()
	RETURNING 1
)
SELECT (SELECT count(*) FROM up) = 1,
	COALESCE((SELECT extract(epoch FROM expires - now())::float8 FROM room_leases WHERE room = $1), 0)`,
		room, c.host, c.ttl.Seconds()).Scan(&mine, &left)
	if err != nil {
		return false, err
	}
	l = lease{mine: mine, until: now.Add(c.ttl / 2)}
	if !mine {
		// Until it lapses, or a heartbeat later (its holder may give it up).
		l.until = now.Add(min(time.Duration(left*float64(time.Second)), c.ttl/3))
	}
	c.mu.Lock()
	c.leases[room] = l
	c.mu.Unlock()
	return mine, nil
}

// RenewLeases extends this host's leases of the rooms it holds in memory
// and gives up the others, so that another host may take them at once.
func (c *Cluster) RenewLeases(ctx context.Context, loaded []string) error {
	now := time.Now()
	if loaded == nil {
		loaded = []string{} // not NULL: room = ANY(NULL) matches nothing, NOT of it neither
	}
	rows, err := c.s.pool.Query(ctx, `
WITH gone AS (DELETE FROM room_leases WHERE host = $1 AND NOT (room = ANY($2)))
UPDATE room_leases SET expires = now() + make_interval(secs => $3) WHERE host = $1 AND room = ANY($2) RETURNING room`,
		c.host, loaded, c.ttl.Seconds())
	if err != nil {
		return err
	}
	held, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for room, l := range c.leases {
		if l.mine || !now.Before(l.until) {
			delete(c.leases, room)
		}
	}
	for _, room := range held {
		c.leases[room] = lease{mine: true, until: now.Add(c.ttl / 2)}
	}
	return nil
}

// Exec runs one statement on the store's pool (tests and tools: the
// store's own methods are its interface).
func (s *Store) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := s.pool.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}
