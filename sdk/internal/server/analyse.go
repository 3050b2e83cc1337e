package server

import (
	"context"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/wire"
)

// Analyse answers the host's Analyse with the variant's (sdk.Analyser). It
// goes over gRPC, as Suggest does, never over the quick channel: a search
// must not hold up the calls of the rooms.
func (s *server) Analyse(ctx context.Context, r *wire.AnalyseRequest) (_ *wire.AnalyseResponse, err error) {
	defer recoverRule(&err)
	v, err := s.reg.variant(r.Variant)
	if err == nil {
		if r.DeadlineUnixNano > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, time.Unix(0, r.DeadlineUnixNano))
			defer cancel()
		}
		an, ok := v.(sdk.Analyser)
		if !ok {
			err = sdk.Errorf(sdk.CodeUnsupported, "%s has no analysis", r.Variant)
		} else {
			var a sdk.Analysis
			lim := sdk.Limit{Depth: int(r.Depth), Nodes: r.Nodes, Time: time.Duration(r.TimeNanos)}
			a, err = an.Analyse(ctx, sdk.AnalyseRequest{State: r.State, Limit: lim})
			if err == nil {
				return wire.FromAnalysis(a), nil
			}
		}
	}
	re, other := wire.FromRuleError(err)
	if other != nil {
		return nil, other
	}
	return &wire.AnalyseResponse{Error: re}, nil
}

// exportAnalysed is Export with analyses (sdk.AnalysedExporter); ok is
// false when the variant does not write them, and Export goes on as usual.
func exportAnalysed(v sdk.Variant, r *wire.ExportRequest) (text string, ok bool, err error) {
	ae, has := v.(sdk.AnalysedExporter)
	if !has || len(r.Analyses) == 0 {
		return "", false, nil
	}
	as, err := wire.ToPlyAnalyses(r.Analyses)
	if err != nil {
		return "", true, sdk.Errorf(sdk.CodeBadFormat, "the analyses: %v", err)
	}
	text, err = ae.ExportAnalysed(r.State, r.Format, r.Lang, as)
	return text, true, err
}
