package harness

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteHTML writes the summary as one self-contained HTML page: every
// scenario with its outcome, its steps and their times, the failure, and
// its screenshots inline (the screenshot steps' and a failure's), so the
// page can be opened or attached on its own.
func (s Summary) WriteHTML(w io.Writer) error {
	type shot struct {
		Name string
		Src  template.URL
	}
	type row struct {
		Result
		Class, Outcome string
		Shots          []shot
		Files          []string
	}
	var rows []row
	for _, r := range s.Results {
		x := row{Result: r}
		switch {
		case r.Skipped:
			x.Class, x.Outcome = "skip", "skipped: "+r.Why()
		case r.Flaky:
			x.Class, x.Outcome = "flaky", fmt.Sprintf("flaky: passed on attempt %d", r.Attempts)
		case r.Passed:
			x.Class, x.Outcome = "pass", "passed"
		default:
			x.Class, x.Outcome = "fail", "failed"
		}
		for _, p := range append(append([]string(nil), r.Screenshots...), r.Artifacts...) {
			if !strings.HasSuffix(p, ".png") {
				x.Files = append(x.Files, p)
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				x.Files = append(x.Files, p)
				continue
			}
			// A data: URL of a PNG the harness wrote itself.
			x.Shots = append(x.Shots, shot{Name: filepath.Base(p), Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))})
		}
		rows = append(rows, x)
	}
	return reportPage.Execute(w, map[string]any{"Line": s.Line(), "Rows": rows})
}

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"secs": func(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) },
	"str":  func(e error) string { return fmt.Sprint(e) },
	"inc":  func(i int) int { return i + 1 },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Banmen harness: {{.Line}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}
section{border-left:6px solid #999;padding:.2em 1em;margin:1em 0}
.pass{border-color:#2a2}.fail{border-color:#c22}.flaky{border-color:#e90}.skip{border-color:#999}
table{border-collapse:collapse}td{padding:1px 8px;vertical-align:top}
tr.bad td{color:#c22}.missing{color:#c22}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
img{max-width:320px;border:1px solid #ccc;margin:4px}figure{display:inline-block;margin:0}
</style></head><body>
<h1>{{.Line}}</h1>
{{range .Rows}}<section class="{{.Class}}" id="{{.Name}}">
<h2>{{.Name}} <small>{{.Outcome}}{{if not .Skipped}}, {{secs .Duration}}{{end}}</small></h2>
{{with .Scenario.File}}<p>{{.}}</p>{{end}}
{{with .Trace}}<p><a href="file://{{.}}">the trace of the failure</a>: steps and times, every actor's pages, consoles, room messages, host log</p>{{end}}
{{if .Err}}<pre>{{str .Err}}</pre>{{end}}
{{if gt .Attempts 1}}<p>{{.Attempts}} attempts, {{secs .Duration}} in all:</p>{{range $i, $t := .Tries}}{{if $t.Err}}<p>attempt {{inc $i}} failed after {{secs $t.Duration}}:</p><pre>{{str $t.Err}}</pre>{{end}}{{end}}{{end}}
{{range .Missing}}<p class="missing">missing: {{.}}</p>{{end}}
{{if .Steps}}<table>{{range .Steps}}<tr{{if .Err}} class="bad"{{end}}><td>{{.Step}}</td><td>line {{.Line}}</td><td>{{.What}}</td><td>{{secs .Duration}}</td></tr>{{end}}</table>{{end}}
{{range .Shots}}<figure><img src="{{.Src}}" alt="{{.Name}}"><figcaption>{{.Name}}</figcaption></figure>{{end}}
{{range .Files}}<p><a href="file://{{.}}">{{.}}</a></p>{{end}}
</section>
{{end}}</body></html>
`))
