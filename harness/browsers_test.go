package harness_test

import (
	"testing"

	"github.com/banmen/banmen/harness"
)

// The site's storage an actor can leave behind: a cookie, localStorage and
// sessionStorage.
const (
	jsLeave = `(() => {
  document.cookie = 'probe=left; max-age=3600; path=/';
  localStorage.setItem('probe', 'left');
  sessionStorage.setItem('probe', 'left');
  if (!document.cookie.includes('probe=left') || localStorage.getItem('probe') !== 'left') throw new Error('the probe was not stored');
})()`
	jsNothingLeft = `(() => {
  const seen = [];
  if (document.cookie.includes('probe=')) seen.push('cookie ' + document.cookie);
  if (localStorage.getItem('probe') !== null) seen.push('localStorage');
  if (sessionStorage.getItem('probe') !== null) seen.push('sessionStorage');
  if (seen.length) throw new Error('left by another browser: ' + seen.join(', '));
})()`
)

// TestBrowsersReusedIsolated: in each engine, a scenario plays in the
// browser process the one before it played in (one process started for
// both), and sees nothing that one left: no cookie, no localStorage, no
// sessionStorage. Within a scenario, another actor of the same process
// sees nothing of the first's either.
func TestBrowsersReusedIsolated(t *testing.T) {
	t.Parallel()
	leave, err := harness.Parse([]byte(`
name: leaves its storage
variant: shogi
actors:
  - {name: host, device: desktop}
  - {name: guest, device: phone}
steps:
  - open: play
  - script: "` + oneLine(jsLeave) + `"
  - {actor: guest, open: play}
  - {actor: guest, script: "` + oneLine(jsNothingLeft) + `"}
`))
	if err != nil {
		t.Fatal(err)
	}
	find, err := harness.Parse([]byte(`
name: finds nothing left
variant: shogi
steps:
  - open: play
  - script: "` + oneLine(jsNothingLeft) + `"
  - reload: true
  - script: "` + oneLine(jsNothingLeft) + `"
`))
	if err != nil {
		t.Fatal(err)
	}
	eachEngine(t, func(t *testing.T, cfg harness.Config, _ string) {
		bs := harness.NewBrowsers()
		defer bs.Close()
		cfg.Browsers = bs
		engine := cfg.Engines[0]
		for _, sc := range []*harness.Scenario{leave, find} {
			sum, err := harness.Run(t.Context(), cfg, []*harness.Scenario{sc})
			if err != nil {
				t.Fatal(err)
			}
			if r := sum.Results[0]; !r.Passed {
				t.Fatalf("%s: %v", r.Name(), r.Err)
			}
		}
		// Chromium and Firefox: one process for both scenarios and every
		// actor; WebKit: one WebKitWebDriver for each actor at once.
		want := 1
		if engine == "webkit" {
			want = 2
		}
		if n := harness.BrowsersStarted(bs, engine); n != want {
			t.Errorf("%d %s processes started for two scenarios, want %d: the browsers were not reused", n, engine, want)
		}
	})
}

// oneLine makes a script fit in a YAML double-quoted string.
func oneLine(js string) string {
	out := make([]rune, 0, len(js))
	for _, r := range js {
		switch r {
		case '\n':
			out = append(out, ' ')
		case '"', '\\':
			out = append(out, '\\', r)
		default:
			out = append(out, r)
		}
	}
	return string(out)
}
