// Command faulty is a test plugin: tic-tac-toe that misbehaves on request,
// so the host's supervision can be tested against a real process. A move
// "hang" never returns, "crash" kills the process, "slow:<move>" waits a
// while before playing <move>, "spin:<ms>" keeps the CPU busy that long
// and then fails (busy, not hung), "pid" fails with the process ID as message, "log" writes a log line.
package main

import (
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/banmen/banmen/sdk/serve"
)

type faulty struct{ tictactoe.Variant }

func (faulty) Describe() sdk.Description {
	d := tictactoe.Variant{}.Describe()
	d.ID, d.Name = "faulty", "Faulty tic-tac-toe"
	return d
}

func (f faulty) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	switch {
	case m == "hang":
		select {}
	case m == "crash":
		os.Exit(3)
	case m == "log":
		slog.Warn("a line from the plugin", "detail", 42)
		return nil, sdk.View{}, sdk.Errorf("logged", "logged")
	case m == "pid":
		return nil, sdk.View{}, sdk.Errorf("pid", "%s", strconv.Itoa(os.Getpid()))
	case strings.HasPrefix(string(m), "spin:"):
		ms, _ := strconv.Atoi(strings.TrimPrefix(string(m), "spin:"))
		n := 0
		for end := time.Now().Add(time.Duration(ms) * time.Millisecond); time.Now().Before(end); {
			n++
		}
		return nil, sdk.View{}, sdk.Errorf("spun", "spun %d", n)
	case strings.HasPrefix(string(m), "slow:"):
		time.Sleep(400 * time.Millisecond)
		m = sdk.Move(strings.TrimPrefix(string(m), "slow:"))
	}
	return f.Variant.Play(s, seat, m)
}

func main() { serve.Serve(faulty{}) }
