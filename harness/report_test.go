package harness

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRetryKeepsEveryAttempt: a scenario that fails every attempt says how
// many ran, keeps each attempt's error and artifacts (each in its own
// folder), and its time is that of them all, in its log line and reports.
func TestRetryKeepsEveryAttempt(t *testing.T) {
	sc := &Scenario{Name: "stubborn", Variant: "shogi"}
	var dirs []int
	r := retry(2, func(n int) Result {
		dirs = append(dirs, n)
		return Result{Scenario: sc, Duration: time.Duration(n) * time.Second,
			Err:       fmt.Errorf("step %d (line 9, expect): ply: want 3, got 2", n),
			Artifacts: []string{fmt.Sprintf("/out/stubborn/attempt-%d/host-tab1.png", n)}}
	})
	if !slices.Equal(dirs, []int{1, 2, 3}) || r.Attempts != 3 || len(r.Tries) != 3 {
		t.Fatalf("attempts %v, %d, tries %d", dirs, r.Attempts, len(r.Tries))
	}
	if r.Duration != 6*time.Second {
		t.Errorf("duration %v, want the 6s of all three attempts", r.Duration)
	}
	for i, tr := range r.Tries {
		if want := fmt.Sprintf("step %d ", i+1); !strings.HasPrefix(fmt.Sprint(tr.Err), want) {
			t.Errorf("attempt %d's error %v", i+1, tr.Err)
		}
		if len(tr.Artifacts) != 1 || !strings.Contains(tr.Artifacts[0], fmt.Sprintf("attempt-%d/", i+1)) {
			t.Errorf("attempt %d's artifacts %v", i+1, tr.Artifacts)
		}
	}
	if len(r.Artifacts) != 3 {
		t.Errorf("artifacts %v, want every attempt's", r.Artifacts)
	}
	line := r.line()
	for _, w := range []string{"FAIL  stubborn (6.0s, 3 attempts): step 3 ", "attempt 1 (1.0s): step 1 ", "attempt 2 (2.0s): step 2 ", "attempt-1/host-tab1.png", "attempt-3/host-tab1.png"} {
		if !strings.Contains(line, w) {
			t.Errorf("log line lacks %q:\n%s", w, line)
		}
	}
	var x bytes.Buffer
	if err := (Summary{Results: []Result{r}}).WriteJUnit(&x); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`time="6.000"`, "3 attempts in 6.0s", "attempt 1 (1.0s): step 1 "} {
		if !strings.Contains(x.String(), w) {
			t.Errorf("the JUnit report lacks %q:\n%s", w, x.String())
		}
	}
}

// TestRetryFlaky: a scenario that fails and then passes on a retry is
// flaky, not passed: in the counts, the summary line, its log line and the
// JUnit report, keeping the first failure and its artifacts. One that never
// passes is played 1+n times and fails.
func TestRetryFlaky(t *testing.T) {
	sc := &Scenario{Name: "wobbly", Variant: "shogi"}
	calls := 0
	r := retry(2, func(int) Result {
		calls++
		if calls == 1 {
			return Result{Scenario: sc, Err: errors.New("step 3 (line 9, expect): ply: want 3, got 2"), Artifacts: []string{"/out/wobbly/host-tab1.png"}}
		}
		return Result{Scenario: sc, Passed: true}
	})
	if calls != 2 || !r.Flaky || r.Attempts != 2 || r.FirstErr == nil || len(r.Artifacts) != 1 {
		t.Fatalf("after a failure then a pass: calls %d, %+v", calls, r)
	}
	never := 0
	f := retry(2, func(int) Result { never++; return Result{Scenario: sc, Err: errors.New("no")} })
	if never != 3 || f.Passed || f.Flaky || f.Attempts != 3 {
		t.Errorf("always failing: calls %d, %+v", never, f)
	}
	once := retry(0, func(int) Result { return Result{Scenario: sc, Passed: true} })
	if once.Flaky || once.Attempts != 1 {
		t.Errorf("passing at once: %+v", once)
	}
	sum := Summary{Results: []Result{r, once}, Duration: time.Second}
	if p, failed, _ := sum.Counts(); p != 1 || failed != 0 || sum.Flaky() != 1 {
		t.Errorf("counts %d passed %d failed %d flaky", p, failed, sum.Flaky())
	}
	if line := sum.Line(); !strings.HasPrefix(line, "1 passed, 1 flaky, 0 failed") {
		t.Errorf("summary line %q", line)
	}
	if l := r.line(); !strings.HasPrefix(l, "FLAKY wobbly") || !strings.Contains(l, "passed on attempt 2; first: step 3") {
		t.Errorf("log line %q", l)
	}
	var x bytes.Buffer
	if err := sum.WriteJUnit(&x); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`tests="2"`, `failures="0"`, `<flakyFailure message="step 3 (line 9, expect): ply: want 3, got 2"`, "[[ATTACHMENT|/out/wobbly/host-tab1.png]]"} {
		if !strings.Contains(x.String(), w) {
			t.Errorf("the JUnit report lacks %q:\n%s", w, x.String())
		}
	}
}

// TestHTMLReport: the HTML report has every scenario with its outcome, its
// steps with their lines and times, the failure, and its screenshots inline.
func TestHTMLReport(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	shot := filepath.Join(dir, "after-drop.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	console := filepath.Join(dir, "host-console.txt")
	sum := Summary{Duration: 3 * time.Second, Results: []Result{
		{Scenario: &Scenario{Name: "good", File: "scenarios/good.yaml"}, Passed: true, Duration: time.Second, Attempts: 1,
			Steps: []StepResult{{Step: 1, Line: 5, What: "open play", Duration: 800 * time.Millisecond}}},
		{Scenario: &Scenario{Name: "bad <one>"}, Err: errors.New("step 2 (line 7, expect): ply: want 3, got 2"), Duration: 2 * time.Second,
			Steps: []StepResult{
				{Step: 1, Line: 6, What: "move 7g7f", Duration: 300 * time.Millisecond},
				{Step: 2, Line: 7, What: "expect", Duration: time.Second, Err: "ply: want 3, got 2"},
			},
			Screenshots: []string{shot}, Artifacts: []string{console}},
		{Scenario: &Scenario{Name: "later", Skip: "not yet"}, Skipped: true},
	}}
	var b bytes.Buffer
	if err := sum.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, w := range []string{
		"<title>Banmen harness: 1 passed, 1 failed (1 skipped)",
		`<section class="pass" id="good">`, "scenarios/good.yaml", "<td>line 5</td><td>open play</td><td>0.8s</td>",
		`<section class="fail" id="bad &lt;one&gt;">`, "step 2 (line 7, expect): ply: want 3, got 2", `<tr class="bad"><td>2</td>`,
		`<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `" alt="after-drop.png">`,
		console, "skipped: not yet",
	} {
		if !strings.Contains(h, w) {
			t.Errorf("the report lacks %q:\n%s", w, h)
		}
	}
}
