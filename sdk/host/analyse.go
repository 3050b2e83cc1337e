package host

import (
	"context"
	"math"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
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

// Analyse calls the variant's Analyse (sdk.Analyser) over gRPC, never the
// quick channel that the rooms' calls take; ctx's deadline travels to the
// plugin. A variant without it, or a plugin built before it, answers
// CodeUnsupported.
func (c *Conn) Analyse(ctx context.Context, variant string, req sdk.AnalyseRequest) (sdk.Analysis, error) {
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
	return r.Conn.Analyse(ctx, r.ID, req)
}

var _ sdk.Analyser = Remote{}

// ExportAnalysed calls the variant's Export for a record with the
// analyses as comments (sdk.AnalysedExporter); a variant without it, or a
// plugin built before it, writes the plain record.
func (c *Conn) ExportAnalysed(ctx context.Context, variant string, s sdk.State, format, lang string, analyses []sdk.PlyAnalysis) (string, error) {
	if err := textError(sdk.CodeBadFormat, "the format", format, lang); err != nil {
		return "", err
	}
	for _, a := range analyses {
		texts := []string{string(a.Analysis.Best)}
		for _, m := range a.Analysis.PV {
			texts = append(texts, string(m))
		}
		if err := textError(sdk.CodeBadMove, "a move of the analysis", texts...); err != nil {
			return "", err
		}
	}
	req := &wire.ExportRequest{Variant: variant, State: s, Format: format, Lang: lang, Analyses: wire.FromPlyAnalyses(analyses)}
	r, err := quickCall(c, ctx, channel.CallExport, req, new(wire.ExportResponse), c.game.Export)
	if err != nil {
		return "", c.transport("export", err)
	}
	if r.Error != nil {
		return "", wire.ToRuleError(r.Error)
	}
	return r.Text, nil
}

// ExportAnalysed writes a record with analyses through the plugin process.
func (r Remote) ExportAnalysed(s sdk.State, format, lang string, analyses []sdk.PlyAnalysis) (string, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.ExportAnalysed(ctx, r.ID, s, format, lang, analyses)
}

var _ sdk.AnalysedExporter = Remote{}
