package host

import (
	"context"
	"math"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// analyses tells whether the plugin's Description of variant says Analyse.
func (c *Conn) analyses(variant string) bool {
	for _, d := range c.descs {
		if d.ID == variant {
			return d.Analyse
		}
	}
	return false
}

// AnalyseRequest asks for a position to be evaluated.
type AnalyseRequest struct {
	Variant string
	State   sdk.State
	Limit   sdk.Limit
}

// Analyse calls the variant's Analyse (sdk.Analyser) over gRPC, never the
// quick channel that the rooms' calls take; ctx's deadline travels to the
// plugin. A variant without it, or a plugin built before it, answers
// CodeUnsupported.
func (c *Conn) Analyse(ctx context.Context, req AnalyseRequest) (sdk.Analysis, error) {
	variant := req.Variant
	if !c.analyses(variant) {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeUnsupported, "%s has no analysis", variant)
	}
	l := req.Limit
	w := &wire.AnalyseRequest{Variant: variant, State: req.State,
		Depth: int32(max(0, min(l.Depth, math.MaxInt32))), Nodes: max(0, l.Nodes), TimeNanos: max(0, int64(l.Time))}
	if d, ok := ctx.Deadline(); ok {
		w.DeadlineUnixNano = d.UnixNano()
	}
	r, err := c.game.Analyse(ctx, w)
	if err != nil {
		if status.Code(err) == codes.Unimplemented {
			return sdk.Analysis{}, sdk.Errorf(sdk.CodeUnsupported, "the plugin of %s has no analysis", variant)
		}
		return sdk.Analysis{}, c.transport("analyse", err)
	}
	if r.Error != nil {
		return sdk.Analysis{}, wire.ToRuleError(r.Error)
	}
	a, err := wire.ToAnalysis(r)
	if err != nil {
		return sdk.Analysis{}, c.transport("analyse", err)
	}
	return a, nil
}

// Analyse evaluates a position through the plugin process.
func (r Remote) Analyse(ctx context.Context, req sdk.AnalyseRequest) (sdk.Analysis, error) {
	return r.Conn.Analyse(ctx, AnalyseRequest{Variant: r.ID, State: req.State, Limit: req.Limit})
}

var _ sdk.Analyser = Remote{}

// ExportAnalysed writes a record with analyses through the plugin process.
func (r Remote) ExportAnalysed(s sdk.State, format, lang string, analyses []sdk.PlyAnalysis) (string, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.Export(ctx, ExportRequest{Variant: r.ID, State: s, Format: format, Lang: lang, Analyses: analyses})
}

var _ sdk.AnalysedExporter = Remote{}
