// Package configs holds the configuration files Banmen ships, embedded, so
// that whatever starts a host for a test (platform/hosttest) runs the very
// configuration users get. It must never interpret them: reading a
// configuration is platform/internal/config's job.
package configs

import _ "embed"

// Default is configs/default.yaml, the configuration `bin/banmen` reads when
// started from the repository.
//
//go:embed default.yaml
var Default []byte
