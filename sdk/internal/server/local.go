package server

import (
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
)

// Local is a plugin's server without its process and its socket: it
// answers a request frame's body with the reply frame the plugin would
// write on the multiplexed lane, through the same code (the request's
// decoding, the variant, the wire form, the encoding). It is for
// benchmarks that measure a call as the host makes it
// (sdktest.BenchmarkServedPlay); the host never uses it.
type Local struct{ srv *server }

// GCPercent is the collector's setting of a plugin process (its GOGC
// unless the environment sets one), for a benchmark to run under. It is
// no knob of the contract: a plugin's environment may set GOGC.
const GCPercent = pluginGCPercent

// NewLocal serves the variants locally.
func NewLocal(variants ...sdk.Variant) (*Local, error) {
	reg, err := newRegistry(variants)
	if err != nil {
		return nil, err
	}
	return &Local{srv: &server{reg: reg}}, nil
}

// Answer appends to out the reply frame of a request of the given kind (a
// channel call kind) with id and body, as the plugin's lane does.
func (l *Local) Answer(out []byte, kind byte, id uint32, body []byte) []byte {
	resp, err := l.srv.dispatch(kind, body)
	if err == nil {
		if out, err = channel.AppendMux(out, channel.ReplyOK, id, resp, ""); err == nil {
			return out
		}
	}
	out, _ = channel.AppendMux(out, channel.ReplyFailed, id, nil, err.Error())
	return out
}
