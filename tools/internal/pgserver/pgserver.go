// Package pgserver starts a throwaway PostgreSQL cluster for the tools (the
// load command's -stores comparison): Debian's initdb and pg_ctl (package
// postgresql, /usr/lib/postgresql/<ver>/bin) in a temporary directory,
// listening only on a Unix socket there, removed by Stop or, should the
// tool die first, by a watchdog. As root, the cluster runs as the
// unprivileged user "postgres" (initdb refuses root).
package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// ErrNotFound means no PostgreSQL server binaries were found.
var ErrNotFound = errors.New("no PostgreSQL found (Debian: apt-get install postgresql; or set BANMEN_PG_BIN to the directory of initdb and pg_ctl)")

// Cluster is a running temporary cluster.
type Cluster struct {
	Dir  string // data directory and socket directory
	bin  string
	cred *syscall.Credential
	n    atomic.Int64
	dog  *exec.Cmd // the watchdog (watch)
}

// BinDir finds the directory of initdb and pg_ctl: $BANMEN_PG_BIN, PATH,
// or the newest /usr/lib/postgresql/<ver>/bin.
func BinDir() (string, error) {
	if d := os.Getenv("BANMEN_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("BANMEN_PG_BIN=%s: %w", d, err)
		}
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	major := func(initdb string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
		return n
	}
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	if len(dirs) > 0 {
		return filepath.Dir(dirs[0]), nil
	}
	return "", ErrNotFound
}

// Start creates and starts a cluster in a new temporary directory. Its
// fsync stays on: the load command compares it with a store that syncs.
func Start() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "banmen-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses= -c max_connections=200", dir)
	if out, err := c.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	c.watch()
	return c, nil
}

// watch starts a watchdog that stops the cluster and removes its directory
// if this process dies without Stop, so that no postgres outlives the tool
// for long.
func (c *Cluster) watch() {
	script := fmt.Sprintf(`while [ -d /proc/%d ]; do sleep 1; done; %q -D %q -m immediate stop >/dev/null 2>&1; rm -rf %q`,
		os.Getpid(), filepath.Join(c.bin, "pg_ctl"), filepath.Join(c.Dir, "data"), c.Dir)
	cmd := exec.Command("sh", "-c", script)
	// Its own process group: an interrupt of the tool does not end it
	// before it has cleaned up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred}
	if err := cmd.Start(); err == nil {
		c.dog = cmd
		go cmd.Wait()
	}
}

func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd.CombinedOutput()
}

// PID is the postmaster's process ID (its children are the backends).
func (c *Cluster) PID() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.Dir, "data", "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(line))
}

// Stop stops the cluster (immediate shutdown) and removes its directory.
func (c *Cluster) Stop() {
	c.run("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(c.Dir)
	if c.dog != nil {
		c.dog.Process.Kill()
	}
}

// DSN is the connection string of database db.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("host=%s port=5432 user=postgres dbname=%s sslmode=disable", c.Dir, db)
}

// NewDatabase creates an empty database and returns its DSN.
func (c *Cluster) NewDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.n.Add(1))
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return "", err
	}
	return c.DSN(name), nil
}
