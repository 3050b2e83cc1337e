// Package config reads the host's configuration: built-in defaults, then a
// YAML file, then BANMEN_* environment variables, then command-line flags.
// It must never read anything else (no global state, no os.Getenv: the
// caller passes getenv, so tests stay hermetic); the one fact it takes from
// the process is where its executable lies, so that the built-in paths and
// the default file are found from any working directory.
//
// A relative path setting means, by where it was set: in the built-in
// defaults, beside the executable (bin/plugins for bin/banmen); in a file,
// beside that file; in a flag or BANMEN_* variable, in the working
// directory, as a shell user expects.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration of a host.
type Config struct {
	Host    string `yaml:"host"`
	Port    int    `yaml:"port"`
	DataDir string `yaml:"data_dir" config:"path"`
	// Store is where rooms live: "sqlite" (rooms.db in DataDir) or
	// "postgres" (StoreDSN; several hosts may share it).
	Store     string            `yaml:"store"`
	StoreDSN  string            `yaml:"store_dsn"`
	PluginDir string            `yaml:"plugin_dir" config:"path"`
	Variants  []string          `yaml:"variants"`
	PluginEnv map[string]string `yaml:"plugin_env"`
	LogLevel  string            `yaml:"log_level"`
	LogFormat string            `yaml:"log_format"`
	// Origins may open room sockets ("https://banmen.example"); empty: only
	// pages of the host the request was sent to.
	Origins []string `yaml:"origins"`
	// PublicURL is the site's address as players reach it
	// ("https://banmen.example"), for the invitation links; empty: the
	// scheme and Host of the request (never X-Forwarded-Host).
	PublicURL string `yaml:"public_url"`
	// TrustedProxies are the addresses or CIDR ranges of the reverse
	// proxies in front of the host: only from them is ProxyHeader read for
	// the client's address (and X-Forwarded-Proto and -Host honoured).
	// Empty: the connection's address is the client's.
	TrustedProxies []string `yaml:"trusted_proxies"`
	ProxyHeader    string   `yaml:"proxy_header"`
	// OpsAddr serves /metrics (and /healthz) apart from the site; empty:
	// on the site's own port.
	OpsAddr string `yaml:"ops_addr"`
	// StateKey signs the game states the stateless API hands out (at
	// least 32 characters). Empty: a random key kept in data_dir/state.key.
	// Hosts sharing a PostgreSQL store must share it.
	StateKey string `yaml:"state_key"`
	Limits   Limits `yaml:"limits"`

	// origins says where each setting that is not a built-in default came
	// from (setting name → "config file X", "BANMEN_X", "-x"), for errors.
	origins map[string]string
}

// Limits bound what one request or one plugin may cost.
type Limits struct {
	BodyBytes       int           `yaml:"body_bytes"`
	CallTimeout     time.Duration `yaml:"call_timeout"`
	SuggestTimeout  time.Duration `yaml:"suggest_timeout"`
	HealthInterval  time.Duration `yaml:"health_interval"`
	RestartBurst    int           `yaml:"restart_burst"`
	RestartWindow   time.Duration `yaml:"restart_window"`
	UnavailableFor  time.Duration `yaml:"unavailable_for"`
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	RoomTTL         time.Duration `yaml:"room_ttl"`
	RoomSweep       time.Duration `yaml:"room_sweep"`
	// Room sockets.
	FrameBytes         int           `yaml:"frame_bytes"`
	SocketQueue        int           `yaml:"socket_queue"`
	SocketBurst        int           `yaml:"socket_burst"`
	SocketRate         int           `yaml:"socket_rate"`
	PingInterval       time.Duration `yaml:"ping_interval"`
	RoomsPerMinute     int           `yaml:"rooms_per_minute"`
	WrongKeysPerMinute int           `yaml:"wrong_keys_per_minute"`
	SeatCodeTTL        time.Duration `yaml:"seat_code_ttl"`
	// AnswerBytes bounds one answer of the stateless game API.
	AnswerBytes int `yaml:"answer_bytes"`
	// Per client address (IPv6 per /64): token buckets of calls a minute,
	// the burst the same.
	APICallsPerMinute int `yaml:"api_calls_per_minute"`
	SocketsPerMinute  int `yaml:"sockets_per_minute"`
	SuggestsPerMinute int `yaml:"suggests_per_minute"`
	// Bulkheads: the calls of the stateless API (and its computer moves)
	// that may be in a plugin process at once, per variant plugin;
	// more answer 503 at once.
	APIInFlight     int `yaml:"api_in_flight"`
	SuggestInFlight int `yaml:"suggest_in_flight"`
	// HostHeartbeat is how often a host sharing a PostgreSQL store says it
	// is alive; one not heard of for three beats is dead and its
	// connections no longer count.
	HostHeartbeat time.Duration `yaml:"host_heartbeat"`
	// A room's own limits (docs/operations.md, "Running it in public").
	RoomWatchers      int           `yaml:"room_watchers"`
	PresenceInterval  time.Duration `yaml:"presence_interval"`
	ActionBurst       int           `yaml:"action_burst"`
	ActionRate        int           `yaml:"action_rate"`
	RoundsWithoutMove int           `yaml:"rounds_without_move"`
	// OpponentGone is how long a 2-player room's seat must be away before
	// the other player may claim the win.
	OpponentGone time.Duration `yaml:"opponent_gone"`
}

// Default is the configuration when nothing overrides it. Its relative
// paths are relative to the executable's directory (see Load).
func Default() Config {
	return Config{
		Port:        8080,
		DataDir:     "data",
		Store:       "sqlite",
		PluginDir:   "plugins",
		LogLevel:    "info",
		LogFormat:   "text",
		ProxyHeader: "X-Forwarded-For",
		OpsAddr:     "127.0.0.1:9464",
		Limits: Limits{
			BodyBytes:       256 << 10,
			CallTimeout:     5 * time.Second,
			SuggestTimeout:  10 * time.Second,
			HealthInterval:  5 * time.Second,
			RestartBurst:    5,
			RestartWindow:   time.Minute,
			UnavailableFor:  30 * time.Second,
			ShutdownTimeout: 10 * time.Second,
			RoomTTL:         7 * 24 * time.Hour,
			RoomSweep:       time.Hour,

			FrameBytes:         16 << 10,
			SocketQueue:        64,
			SocketBurst:        30,
			SocketRate:         10,
			PingInterval:       20 * time.Second,
			RoomsPerMinute:     10,
			WrongKeysPerMinute: 10,
			SeatCodeTTL:        5 * time.Minute,
			HostHeartbeat:      5 * time.Second,

			AnswerBytes:       4 << 20,
			APICallsPerMinute: 600,
			SocketsPerMinute:  60,
			SuggestsPerMinute: 60,
			APIInFlight:       8,
			SuggestInFlight:   2,
			RoomWatchers:      100,
			PresenceInterval:  250 * time.Millisecond,
			ActionBurst:       20,
			ActionRate:        3,
			RoundsWithoutMove: 20,
			OpponentGone:      40 * time.Second,
		},
	}
}

// DefaultFile is the configuration file read without -config, looked for in
// the working directory, then beside the executable's directory (the layout
// of a checkout: bin/banmen beside configs/).
const DefaultFile = "configs/default.yaml"

// Load builds the configuration from args (flags, including -config FILE)
// and getenv. Without -config, DefaultFile is read when it exists.
func Load(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		exe = ""
	}
	return load(exe, args, getenv, stderr)
}

// load is Load for an executable at exe ("": unknown, so the built-in paths
// stay relative to the working directory).
func load(exe string, args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	cfg := Default()
	cfg.origins = map[string]string{}
	fs := flag.NewFlagSet("banmen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "", "YAML configuration file (default "+DefaultFile+" in the working directory or beside the executable's directory)")
	// Every field is a flag; values are applied after the file and the env.
	fields := leaves(reflect.ValueOf(&cfg).Elem(), "")
	set := map[string]*string{}
	for _, f := range fields {
		v := new(string)
		set[f.name] = v
		fs.Func(f.name, f.help, func(s string) error { *v = s; return nil })
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	exeDir := ""
	if exe != "" {
		exeDir = filepath.Dir(exe)
	}
	path, explicit := *file, *file != ""
	if !explicit {
		path = DefaultFile
		if _, err := os.Stat(path); err != nil && exeDir != "" {
			path = filepath.Join(exeDir, "..", DefaultFile)
		}
	}
	// Built-in relative paths lie beside the executable.
	for _, f := range fields {
		if f.path && exeDir != "" && !filepath.IsAbs(f.value.String()) {
			f.value.SetString(filepath.Join(exeDir, f.value.String()))
		}
	}
	if b, err := os.ReadFile(path); err == nil {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		var fromFile Config
		for _, d := range []any{&cfg, &fromFile} {
			dec := yaml.NewDecoder(strings.NewReader(string(b)))
			dec.KnownFields(true)
			if err := dec.Decode(d); err != nil && !errors.Is(err, io.EOF) {
				return cfg, fmt.Errorf("config %s: %w", path, err)
			}
		}
		// The file's relative paths lie beside it; the second decoding
		// tells which settings the file named.
		named := leaves(reflect.ValueOf(&fromFile).Elem(), "")
		for i, f := range leaves(reflect.ValueOf(&cfg).Elem(), "") {
			if !named[i].value.IsZero() {
				cfg.origins[f.name] = "config file " + path
			}
			if f.path && !named[i].value.IsZero() && !filepath.IsAbs(f.value.String()) {
				f.value.SetString(filepath.Join(filepath.Dir(path), f.value.String()))
			}
		}
	} else if explicit {
		return cfg, fmt.Errorf("config: %w", err)
	}
	fields = leaves(reflect.ValueOf(&cfg).Elem(), "")
	for _, f := range fields {
		env := envName(f.name)
		if s := getenv(env); s != "" {
			if err := f.set(s); err != nil {
				return cfg, fmt.Errorf("%s: %w", env, err)
			}
			cfg.origins[f.name] = env
		}
	}
	for _, f := range fields {
		if s := set[f.name]; s != nil && *s != "" {
			if err := f.set(*s); err != nil {
				return cfg, fmt.Errorf("-%s: %w", f.name, err)
			}
			cfg.origins[f.name] = "-" + f.name
		}
	}
	return cfg, cfg.validate()
}

// envName is the environment variable of a setting.
func envName(setting string) string {
	return "BANMEN_" + strings.ToUpper(strings.NewReplacer(".", "_").Replace(setting))
}

// Origin says where a setting's value came from: "the built-in default",
// "config file /path", "BANMEN_PORT" or "-port".
func (c Config) Origin(setting string) string {
	if o := c.origins[setting]; o != "" {
		return o
	}
	return "the built-in default"
}

// SettingError describes a setting whose value does not work: which
// setting, its value and where that came from, what went wrong, and the
// flag and environment variable that set another.
func (c Config) SettingError(setting string, err error) error {
	value := ""
	for _, f := range leaves(reflect.ValueOf(&c).Elem(), "") {
		if f.name == setting {
			value = fmt.Sprint(f.value.Interface())
		}
	}
	return fmt.Errorf("%s %q (from %s): %w; set another with -%s or %s",
		setting, value, c.Origin(setting), err, setting, envName(setting))
}

func (c Config) validate() error {
	switch {
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("port %d out of range", c.Port)
	case c.Store != "sqlite" && c.Store != "postgres":
		return fmt.Errorf("store %q: want sqlite or postgres", c.Store)
	case c.Store == "postgres" && c.StoreDSN == "":
		return errors.New("store postgres needs store_dsn (or BANMEN_STORE_DSN), the database's connection string")
	case c.PluginDir == "":
		return errors.New("plugin_dir is empty")
	case c.Limits.BodyBytes <= 0:
		return errors.New("limits.body_bytes must be positive")
	case c.Limits.CallTimeout <= 0 || c.Limits.SuggestTimeout <= 0:
		return errors.New("limits.call_timeout and limits.suggest_timeout must be positive")
	case c.Limits.RoomTTL <= 0 || c.Limits.RoomSweep <= 0:
		return errors.New("limits.room_ttl and limits.room_sweep must be positive")
	case c.Limits.FrameBytes < 1024 || c.Limits.SocketQueue <= 0 || c.Limits.SocketBurst <= 0 || c.Limits.SocketRate <= 0:
		return errors.New("limits.frame_bytes (≥ 1024), socket_queue, socket_burst and socket_rate must be positive")
	case c.Limits.PingInterval <= 0 || c.Limits.SeatCodeTTL <= 0 || c.Limits.HostHeartbeat <= 0:
		return errors.New("limits.ping_interval, limits.seat_code_ttl and limits.host_heartbeat must be positive")
	case c.Limits.AnswerBytes <= 0 || c.Limits.APIInFlight <= 0 || c.Limits.SuggestInFlight <= 0:
		return errors.New("limits.answer_bytes, limits.api_in_flight and limits.suggest_in_flight must be positive")
	case c.StateKey != "" && len(c.StateKey) < 32:
		return errors.New("state_key must be at least 32 characters (e.g. `openssl rand -hex 32`)")
	case c.Store == "postgres" && c.StateKey == "":
		return errors.New("store postgres needs state_key (or BANMEN_STATE_KEY), the same on every host: each host signs the game states it hands out, and the others must accept them")
	case c.PublicURL != "" && !validPublicURL(c.PublicURL):
		return fmt.Errorf("public_url %q: want an absolute http or https URL with no path, e.g. https://banmen.example", c.PublicURL)
	case c.Limits.RoomWatchers <= 0 || c.Limits.PresenceInterval <= 0 || c.Limits.ActionBurst <= 0 || c.Limits.ActionRate <= 0 || c.Limits.RoundsWithoutMove <= 0 || c.Limits.OpponentGone <= 0:
		return errors.New("limits.room_watchers, presence_interval, action_burst, action_rate, rounds_without_move and opponent_gone must be positive")
	}
	for _, p := range c.TrustedProxies {
		if !validProxy(p) {
			return fmt.Errorf("trusted_proxies: %q is neither an IP address nor a CIDR range", p)
		}
	}
	return nil
}

func validPublicURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		(u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == "" && u.User == nil
}

func validProxy(s string) bool {
	if _, err := netip.ParsePrefix(s); err == nil {
		return true
	}
	_, err := netip.ParseAddr(s)
	return err == nil
}

// Addr is the listen address.
func (c Config) Addr() string { return c.Host + ":" + strconv.Itoa(c.Port) }

type leaf struct {
	name, help string
	value      reflect.Value
	path       bool // a file system path (tag config:"path")
	set        func(string) error
}

// leaves lists the settable fields of a struct with their dotted YAML names.
func leaves(v reflect.Value, prefix string) []leaf {
	var out []leaf
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name := prefix + strings.Split(sf.Tag.Get("yaml"), ",")[0]
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct {
			out = append(out, leaves(fv, name+".")...)
			continue
		}
		out = append(out, leaf{name: name, help: "config " + name, value: fv,
			path: sf.Tag.Get("config") == "path", set: setter(fv)})
	}
	return out
}

func setter(fv reflect.Value) func(string) error {
	return func(s string) error {
		switch fv.Interface().(type) {
		case time.Duration:
			d, err := time.ParseDuration(s)
			if err != nil {
				return err
			}
			fv.SetInt(int64(d))
		case int:
			n, err := strconv.Atoi(s)
			if err != nil {
				return err
			}
			fv.SetInt(int64(n))
		case string:
			fv.SetString(s)
		case []string:
			var list []string
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					list = append(list, p)
				}
			}
			fv.Set(reflect.ValueOf(list))
		case map[string]string:
			m := map[string]string{}
			for _, p := range strings.Split(s, ",") {
				k, val, ok := strings.Cut(p, "=")
				if !ok {
					return fmt.Errorf("want KEY=VALUE, got %q", p)
				}
				m[strings.TrimSpace(k)] = val
			}
			fv.Set(reflect.ValueOf(m))
		default:
			return fmt.Errorf("unsupported setting type %s", fv.Type())
		}
		return nil
	}
}
