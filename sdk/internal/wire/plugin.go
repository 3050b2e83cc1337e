package wire

import (
	"context"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// Handshake is what the host and a plugin must agree on before they talk.
// ProtocolVersion changes whenever the wire changes incompatibly.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "BANMEN_PLUGIN",
	MagicCookieValue: "6f1d6b0e-banmen-rules-plugin",
}

// PluginName is the one go-plugin plugin every binary serves.
const PluginName = "game"

// Plugin is the go-plugin glue on both sides of the process boundary: the
// plugin gives it its Game server, the host leaves it nil and dispenses a
// GameClient.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	Game GameServer
}

// GRPCServer registers the plugin's server.
func (p *Plugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	RegisterGameServer(s, p.Game)
	return nil
}

// GRPCClient returns the host's client.
func (p *Plugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewGameClient(c), nil
}
