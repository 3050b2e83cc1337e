package engine

import (
	"strings"
	"time"
)

// The environment variables of the plugin process that configure the
// external engine (the host passes them from its config's plugin_env).
const (
	// EnvEngine is a command line, words separated by spaces, of a UCCI
	// engine that plays the Hard level, e.g. /usr/games/fairy-stockfish.
	EnvEngine = "BANMEN_XIANGQI_ENGINE"
	// EnvMoveTime is how long it may think per move, a Go duration
	// ("1s", "800ms"); default 1s. The deadline of the call still wins.
	EnvMoveTime = "BANMEN_XIANGQI_ENGINE_MOVETIME"
)

// defaultMoveTime is the external engine's time per move when unset.
const defaultMoveTime = time.Second

// Config is the player's configuration.
type Config struct {
	External         string        // command line of the external engine; empty for none
	ExternalMoveTime time.Duration // its time per move
}

// ConfigFromEnv reads the configuration from the environment. A bad move
// time falls back to the default rather than failing the plugin.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{External: strings.TrimSpace(getenv(EnvEngine)), ExternalMoveTime: defaultMoveTime}
	if d, err := time.ParseDuration(strings.TrimSpace(getenv(EnvMoveTime))); err == nil && d > 0 {
		c.ExternalMoveTime = d
	}
	return c
}
