//go:build !unix

package sdktest

import "time"

func processCPU() time.Duration { return 0 }
