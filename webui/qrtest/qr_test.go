package qrtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/makiuchi-d/gozxing/qrcode/decoder"
	"github.com/makiuchi-d/gozxing/qrcode/encoder"

	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/webui"
)

var (
	pageURL    string
	browserCtx context.Context
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run serves the embedded static files beside a blank page and starts one
// Chromium for the whole binary. A missing Chromium fails: these tests
// must not pass by not running.
func run(m *testing.M) int {
	browser, err := chromium.Find("", os.Getenv)
	if err != nil {
		fmt.Println("qrtest:", err, "(install the chromium package: scripts/deps.sh)")
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/static/", http.StripPrefix("/static/", http.FileServerFS(webui.Static())))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>qr</title><body></body>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	pageURL = srv.URL + "/"

	tmp, err := os.MkdirTemp("", "banmen-qrtest-")
	if err != nil {
		fmt.Println("qrtest:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(filepath.Join(tmp, "chromium")),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		fmt.Println("qrtest: chromium:", err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

// tab opens the blank page in a new tab; any JavaScript exception or console
// error there fails the test.
func tab(t *testing.T) context.Context {
	t.Helper()
	tabCtx, cancel := chromedp.NewContext(browserCtx)
	var (
		mu   sync.Mutex
		errs []string
	)
	msgs := chromedp.Console(tabCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s %s:%d %s", m.Type, m.URL, m.Line+1, m.Text))
				mu.Unlock()
			}
		}
	}()
	ctx, tcancel := context.WithTimeout(tabCtx, 3*time.Minute)
	t.Cleanup(func() {
		tcancel()
		cancel()
		<-done
		for _, e := range errs {
			t.Errorf("page error: %s", e)
		}
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

type input struct {
	Text string `json:"text"`
	ECC  string `json:"ecc"`
}

// symbol is what qrMatrix returned for one input: rows of '1' (dark) and '0'.
type symbol struct {
	Version int      `json:"version"`
	Mask    int      `json:"mask"`
	Rows    []string `json:"rows"`
	Error   string   `json:"error"`
}

// encode runs qrMatrix in the page over every input, a batch at a time.
func encode(t *testing.T, ctx context.Context, in []input) []symbol {
	t.Helper()
	var out []symbol
	for len(in) > 0 {
		n := min(len(in), 40)
		js, err := json.Marshal(in[:n])
		if err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]symbol](`import('/static/js/qr.js').then(({ qrMatrix }) =>
			`+string(js)+`.map(({ text, ecc }) => {
				try {
					const { version, mask, size, modules } = qrMatrix(text, { ecc });
					if (modules.length !== size) throw new Error('size ' + size + ' but ' + modules.length + ' rows');
					return { version, mask, rows: modules.map((r) => r.map((d) => (d ? '1' : '0')).join('')) };
				} catch (e) {
					return { error: e.name + ': ' + e.message };
				}
			}))`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d symbols for %d inputs", len(got), n)
		}
		out = append(out, got...)
		in = in[n:]
	}
	return out
}

var levels = map[string]decoder.ErrorCorrectionLevel{
	"L": decoder.ErrorCorrectionLevel_L, "M": decoder.ErrorCorrectionLevel_M,
	"Q": decoder.ErrorCorrectionLevel_Q, "H": decoder.ErrorCorrectionLevel_H,
}

// image draws a symbol four pixels a module, inside a quiet zone of four modules.
func (s symbol) image() *image.Gray {
	const scale, quiet = 4, 4
	n := len(s.Rows)
	img := image.NewGray(image.Rect(0, 0, (n+2*quiet)*scale, (n+2*quiet)*scale))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for y, row := range s.Rows {
		for x, c := range row {
			if c == '1' {
				r := image.Rect((x+quiet)*scale, (y+quiet)*scale, (x+quiet+1)*scale, (y+quiet+1)*scale)
				draw.Draw(img, r, image.Black, image.Point{}, draw.Src)
			}
		}
	}
	return img
}

// scan reads an image with gozxing's QR reader: first with its detector, as
// a camera picture would be read, then, since that detector also misses
// some of gozxing's own symbols on a clean image, as a pure barcode (the
// grid taken from the image's edges; format, version, Reed–Solomon and
// bit stream are decoded all the same). detected says the detector read it.
func scan(img image.Image) (res *gozxing.Result, detected bool, err error) {
	for _, hints := range []map[gozxing.DecodeHintType]any{nil, {gozxing.DecodeHintType_PURE_BARCODE: true}} {
		bmp, berr := gozxing.NewBinaryBitmapFromImage(img)
		if berr != nil {
			return nil, false, berr
		}
		if res, err = qrcode.NewQRCodeReader().Decode(bmp, hints); err == nil {
			return res, hints == nil, nil
		}
	}
	return nil, false, err
}

// byteModeForZXing says whether gozxing's encoder, which picks one mode for
// the whole text, would also choose byte mode (it picks numeric or
// alphanumeric when every character allows it).
func byteModeForZXing(text string) bool {
	const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
	for i := 0; i < len(text); i++ {
		if !strings.ContainsRune(alnum, rune(text[i])) {
			return true
		}
	}
	return false
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// check decodes every symbol back to its input, and where gozxing's encoder
// would use byte mode too, requires the same version, mask and modules.
// It returns how many symbols it decoded (and of those, how many gozxing's
// detector found) and how many it compared.
func check(t *testing.T, in []input, got []symbol) (decoded, detected, compared int) {
	t.Helper()
	for i, s := range got {
		text, ecc := in[i].Text, in[i].ECC
		name := fmt.Sprintf("%q (%d bytes, %s)", abbrev(text), len(text), ecc)
		if s.Error != "" {
			t.Errorf("%s: %s", name, s.Error)
			continue
		}
		res, found, err := scan(s.image())
		if err != nil {
			t.Errorf("%s: version %d mask %d does not scan: %v", name, s.Version, s.Mask, err)
			continue
		}
		if res.GetText() != text {
			t.Errorf("%s: scans as %q", name, abbrev(res.GetText()))
			continue
		}
		if lvl := res.GetResultMetadata()[gozxing.ResultMetadataType_ERROR_CORRECTION_LEVEL]; lvl != ecc {
			t.Errorf("%s: scans with level %v", name, lvl)
		}
		decoded++
		if found {
			detected++
		}
		if !byteModeForZXing(text) {
			continue
		}
		hints := map[gozxing.EncodeHintType]any{}
		if !ascii(text) {
			hints[gozxing.EncodeHintType_CHARACTER_SET] = "UTF-8" // an ECI segment, as qr.js writes
		}
		ref, err := encoder.Encoder_encode(text, levels[ecc], hints)
		if err != nil {
			t.Errorf("%s: reference encoder: %v", name, err)
			continue
		}
		if v := ref.GetVersion().GetVersionNumber(); v != s.Version || ref.GetMaskPattern() != s.Mask {
			t.Errorf("%s: version %d mask %d, the reference chose version %d mask %d", name, s.Version, s.Mask, v, ref.GetMaskPattern())
			continue
		}
		if diff := differ(s, ref.GetMatrix()); diff != "" {
			t.Errorf("%s: version %d mask %d differs from the reference at %s", name, s.Version, s.Mask, diff)
			continue
		}
		compared++
	}
	return decoded, detected, compared
}

func differ(s symbol, m *encoder.ByteMatrix) string {
	if m.GetWidth() != len(s.Rows) {
		return fmt.Sprintf("size %d vs %d", len(s.Rows), m.GetWidth())
	}
	for y, row := range s.Rows {
		for x, c := range row {
			if (c == '1') != (m.Get(x, y) == 1) {
				return fmt.Sprintf("x=%d y=%d", x, y)
			}
		}
	}
	return ""
}

func abbrev(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	r := []rune(s)
	return string(r[:20]) + "…" + string(r[len(r)-10:])
}

// TestExamples: invitation links and texts a room might show, at every level.
func TestExamples(t *testing.T) {
	ctx := tab(t)
	texts := []string{
		"https://example.org/uk/shogi/room/3f7kq2m9x4b8c1d6e5g0h2j7k9",
		"https://banmen.example/ja/xiangqi/room/ABCDEFGHIJKLMNOPQRSTUVWXYZ",
		"http://localhost:8080/en/shogi/room/0123456789abcdefghijklmnop",
		"a", "Hello, world!", "hello world 123", "~\\`{|}\t\n",
		"将棋で遊びましょう", "象棋 · 中国象棋", "Шахи: запрошення до кімнати", "Äpfel, Öl, Übermut — ß", "♔♕ 🐉🎌",
		strings.Repeat("https://example.org/", 10),
	}
	var in []input
	for _, text := range texts {
		for _, ecc := range []string{"L", "M", "Q", "H"} {
			in = append(in, input{text, ecc})
		}
	}
	decoded, detected, compared := check(t, in, encode(t, ctx, in))
	t.Logf("%d symbols decoded (%d found by the detector), %d identical to the reference encoder", decoded, detected, compared)
}

// capacity is the most bytes of one byte-mode segment that fit the version
// at the level, by gozxing's own table of codewords and blocks.
func capacity(t *testing.T, version int, ecc string, eci bool) int {
	v, err := decoder.Version_GetVersionForNumber(version)
	if err != nil {
		t.Fatal(err)
	}
	data := v.GetTotalCodewords() - v.GetECBlocksForLevel(levels[ecc]).GetTotalECCodewords()
	header := 4 + 8
	if version >= 10 {
		header = 4 + 16
	}
	if eci {
		header += 12
	}
	return (data*8 - header) / 8
}

// TestCapacityBoundaries: for every version and level, the longest text that
// fits goes into that version and one byte more into the next; beyond
// version 40 qrMatrix refuses. ASCII at every level, UTF-8 (with its ECI) at M.
func TestCapacityBoundaries(t *testing.T) {
	ctx := tab(t)
	var in []input
	var want []int
	pad := func(prefix string, n int) string { // n bytes, lowercase so that it is byte mode
		if n < len(prefix) {
			return strings.Repeat("x", n)
		}
		return prefix + strings.Repeat("x", n-len(prefix))
	}
	for _, ecc := range []string{"L", "M", "Q", "H"} {
		for v := 1; v <= 40; v++ {
			n := capacity(t, v, ecc, false)
			in = append(in, input{pad("https://example.org/", n), ecc}, input{pad("https://example.org/", n+1), ecc})
			want = append(want, v, v+1)
		}
	}
	for v := 1; v <= 40; v++ {
		n := capacity(t, v, "M", true)
		in = append(in, input{pad("将棋", n), "M"}, input{pad("将棋", n+1), "M"})
		want = append(want, v, v+1)
	}
	got := encode(t, ctx, in)
	var ok []input
	var oks []symbol
	for i, s := range got {
		if want[i] == 41 {
			if !strings.HasPrefix(s.Error, "RangeError:") {
				t.Errorf("%d bytes at %s: want a RangeError, got version %d %s", len(in[i].Text), in[i].ECC, s.Version, s.Error)
			}
			continue
		}
		if s.Error == "" && s.Version != want[i] {
			t.Errorf("%d bytes at %s: version %d, want %d", len(in[i].Text), in[i].ECC, s.Version, want[i])
		}
		ok, oks = append(ok, in[i]), append(oks, s)
	}
	decoded, detected, compared := check(t, ok, oks)
	t.Logf("%d symbols decoded, versions 1..40 (%d found by the detector), %d identical to the reference encoder", decoded, detected, compared)
}

// TestRandomTexts: random texts of 1 to 150 characters, ASCII or mixed
// scripts up to four UTF-8 bytes a character, at random levels.
func TestRandomTexts(t *testing.T) {
	ctx := tab(t)
	r := rand.New(rand.NewPCG(13, 18004))
	ranges := [][2]rune{{0x20, 0x7e}, {0xa0, 0xff}, {0x400, 0x4ff}, {0x3040, 0x30ff}, {0x4e00, 0x9fff}, {0x1f300, 0x1f64f}}
	var in []input
	for i := 0; i < 400; i++ {
		n := 1 + r.IntN(150)
		var b strings.Builder
		for range n {
			k := 0
			if i%2 == 1 && r.IntN(3) == 0 {
				k = r.IntN(len(ranges))
			}
			lo, hi := ranges[k][0], ranges[k][1]
			b.WriteRune(lo + r.Int32N(hi-lo+1))
		}
		in = append(in, input{b.String(), []string{"L", "M", "Q", "H"}[r.IntN(4)]})
	}
	decoded, detected, compared := check(t, in, encode(t, ctx, in))
	t.Logf("%d random texts decoded (%d found by the detector), %d identical to the reference encoder", decoded, detected, compared)
}

// TestRefusals: an unknown level is refused rather than guessed, and so is
// a text longer than version 40 at M holds (2331 bytes).
func TestRefusals(t *testing.T) {
	ctx := tab(t)
	got := encode(t, ctx, []input{{"abc", "X"}, {"abc", "toString"}, {strings.Repeat("a", 2332), "M"}})
	for i, s := range got {
		if !strings.HasPrefix(s.Error, "RangeError:") {
			t.Errorf("input %d: want a RangeError, got version %d %q", i, s.Version, s.Error)
		}
	}
}

// TestSVG: qrSVG's markup names itself, and the picture Chromium draws of it
// scans back to the text.
func TestSVG(t *testing.T) {
	ctx := tab(t)
	for _, text := range []string{"https://example.org/uk/shogi/room/3f7kq2m9x4b8c1d6e5g0h2j7k9", "将棋の部屋へようこそ"} {
		js, _ := json.Marshal(text)
		svg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/static/js/qr.js').then(({ qrSVG }) => {
			const svg = qrSVG(`+string(js)+`, { title: 'Invitation <QR> & "link"', px: 300 });
			document.body.innerHTML = '<div id="qr" style="display:inline-block;line-height:0">' + svg + '</div>';
			return svg;
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`role="img"`, `shape-rendering="crispEdges"`, `width="300"`,
			`<title>Invitation &#60;QR&#62; &#38; &#34;link&#34;</title>`} {
			if !strings.Contains(svg, want) {
				t.Errorf("svg lacks %s: %.200s", want, svg)
			}
		}
		if n := strings.Count(svg, "<path"); n != 1 {
			t.Errorf("%d paths, want one", n)
		}
		name, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#qr svg title').textContent`))
		if err != nil || name != `Invitation <QR> & "link"` {
			t.Errorf("title %q, %v", name, err)
		}
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#qr")))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		res, found, err := scan(img)
		if err != nil {
			t.Errorf("%q: Chromium's picture does not scan: %v", text, err)
			continue
		}
		t.Logf("%q: Chromium's picture scans (found by the detector: %v)", text, found)
		if res.GetText() != text {
			t.Errorf("%q: Chromium's picture scans as %q", text, res.GetText())
		}
		if c := color.GrayModel.Convert(img.At(2, 2)).(color.Gray); c.Y < 250 {
			t.Errorf("%q: quiet zone is not light: %v", text, c)
		}
	}
}
