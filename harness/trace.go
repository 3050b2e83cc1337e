package harness

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// socketMessage is one WebSocket message a page sent or received, or a
// socket opened or closed (the preload's log).
type socketMessage struct {
	T    float64 `json:"t"` // ms since the epoch
	Dir  string  `json:"dir"`
	Data string  `json:"data"`
}

// socketText is the messages, a line each: "15:04:05.000 received {...}".
func socketText(ms []socketMessage) []byte {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s %-8s %s\n", time.UnixMilli(int64(m.T)).Format("15:04:05.000"), m.Dir, m.Data)
	}
	return []byte(b.String())
}

// writeTrace writes trace.html in dir for a failed attempt: the steps with
// when each began and how long it took, the failure, every actor's
// pictures (before the failing step, when a retry took them, and after),
// consoles, room messages, and the host's log; it returns its path ("" if
// it could not be written).
func (s *session) writeTrace(dir string, r Result, start time.Time) string {
	type step struct {
		StepResult
		At   string
		Fail bool
	}
	var steps []step
	at := time.Duration(0)
	for _, st := range s.steps {
		steps = append(steps, step{StepResult: st, At: fmt.Sprintf("+%.1fs", at.Seconds()), Fail: st.Err != ""})
		at += st.Duration
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
				out = append(out, r)
			}
		}
		return out
	}
	var shots, files []string
	for _, p := range rel(r.Artifacts) {
		if strings.HasSuffix(p, ".png") {
			shots = append(shots, p)
		} else {
			files = append(files, p)
		}
	}
	p := filepath.Join(dir, "trace.html")
	f, err := os.Create(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	if err := traceTemplate.Execute(f, map[string]any{
		"Name": r.Name(), "Err": fmt.Sprint(r.Err), "Start": start.Format(time.RFC3339), "Steps": steps,
		"Shots": shots, "Files": files, "Missing": r.Missing, "Before": s.before,
	}); err != nil {
		return ""
	}
	return p
}

var traceTemplate = template.Must(template.New("trace").Funcs(template.FuncMap{
	"secs": func(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Trace: {{.Name}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}
td{padding:1px 8px;vertical-align:top}tr.bad td{color:#c22}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
img{max-width:360px;border:1px solid #ccc;margin:4px}figure{display:inline-block;margin:0 8px 8px 0}
</style></head><body>
<h1>{{.Name}}</h1>
<p>Started {{.Start}}.</p>
<pre>{{.Err}}</pre>
<h2>Steps</h2>
<table><tr><th>step</th><th>line</th><th>what</th><th>began</th><th>took</th><th></th></tr>
{{range .Steps}}<tr{{if .Fail}} class="bad"{{end}}><td>{{.Step}}</td><td>{{.Line}}</td><td>{{.What}}</td><td>{{.At}}</td><td>{{secs .Duration}}</td><td>{{.Err}}</td></tr>
{{end}}</table>
<h2>Every actor's pages</h2>
{{if .Before}}<p>Files ending in <code>-before</code> were taken before step {{.Before}}, where the previous attempt failed; the others after the failure.</p>{{else}}<p>Taken after the failure (a retry also takes them before the step that failed).</p>{{end}}
{{range .Shots}}<figure><a href="{{.}}"><img src="{{.}}" alt="{{.}}"></a><figcaption>{{.}}</figcaption></figure>{{end}}
<h2>Consoles, room messages, host log</h2>
<ul>{{range .Files}}<li><a href="{{.}}">{{.}}</a></li>{{end}}</ul>
{{range .Missing}}<p style="color:#c22">missing: {{.}}</p>{{end}}
</body></html>
`))
