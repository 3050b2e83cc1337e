package server

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/webui"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"
)

// pages holds the parsed page templates: each page is the layout plus its own
// "content" block.
type pages struct {
	byName map[string]*template.Template
}

func parsePages() *pages {
	p := &pages{byName: map[string]*template.Template{}}
	for _, name := range []string{"home"} {
		p.byName[name] = template.Must(template.ParseFS(webui.Templates(), "layout.html", name+".html"))
	}
	return p
}

func (p *pages) render(c *fiber.Ctx, name string, data any) error {
	var buf bytes.Buffer
	if err := p.byName[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		return err
	}
	c.Type("html", "utf-8")
	return c.Send(buf.Bytes())
}

// pageData is what every page template receives.
type pageData struct {
	Lang        string
	Title       string
	Description string
	Variants    []sdk.Description
}

func (s *Server) pageRoutes(app *fiber.App) {
	pg := parsePages()
	app.Use("/static", filesystem.New(filesystem.Config{
		Root:   httpFS(webui.Static()),
		MaxAge: 3600,
	}))
	app.Get("/", func(c *fiber.Ctx) error {
		return c.Redirect("/"+preferredLang(c)+"/", fiber.StatusFound)
	})
	app.Get("/:lang/", func(c *fiber.Ctx) error {
		lang := c.Params("lang")
		if !supportedLang(lang) {
			return notFound("not_found", "no such page")
		}
		return pg.render(c, "home", pageData{
			Lang: lang, Title: "Banmen — Shogi, Yonin Shogi and Xiangqi in your browser",
			Description: "Play Shogi, four-player Yonin Shogi and Xiangqi free in your browser.",
			Variants:    s.visible,
		})
	})
}

// supportedLang reports whether the site has pages in lang.
func supportedLang(lang string) bool { return lang == "en" }

// preferredLang picks the page language from Accept-Language.
func preferredLang(c *fiber.Ctx) string {
	for _, part := range strings.Split(c.Get(fiber.HeaderAcceptLanguage), ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if supportedLang(base) {
			return base
		}
	}
	return "en"
}
