package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/sdktest"
)

// TestMain lets the test binary be the plugin: started by sdk.Launch (which
// sets the handshake cookie), it runs main, the real plugin entry point.
func TestMain(m *testing.M) {
	if os.Getenv(sdk.Handshake.MagicCookieKey) == sdk.Handshake.MagicCookieValue {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestConformanceThroughPlugin runs the sdk conformance suite against this
// plugin as the host sees it: a separate process behind go-plugin's gRPC.
func TestConformanceThroughPlugin(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sdk.Launch(context.Background(), sdk.LaunchConfig{
		Cmd:    exec.Command(exe),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Kill()
	sdktest.Run(t, utf8Guard{sdk.Remote{Conn: conn, ID: "xiangqi"}})
}

// utf8Guard works around a limit of the sdk wire (reported to the sdk's
// owner): move and import texts travel as protobuf strings, which gRPC refuses
// to marshal when they are not UTF-8, so the host gets a transport error
// instead of the plugin's RuleError. The guard answers such texts on the host
// side as the plugin itself does. Remove it once the wire carries them.
type utf8Guard struct{ sdk.Remote }

func (g utf8Guard) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	if !utf8.ValidString(string(m)) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadMove, "move text is not UTF-8")
	}
	return g.Remote.Play(s, seat, m)
}

func (g utf8Guard) Import(format, text string) (sdk.State, sdk.View, error) {
	if !utf8.ValidString(text) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadNotation, "text is not UTF-8")
	}
	return g.Remote.Import(format, text)
}
