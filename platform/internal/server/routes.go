package server

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/compress"
	"github.com/gofiber/fiber/v2/middleware/recover"
)

// routes lists every route of the site.
func (s *Server) routes(app *fiber.App) {
	app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: s.logPanic}))
	app.Use(s.securityHeaders)
	app.Use(s.metrics.middleware)
	app.Use(compress.New(compress.Config{Level: compress.LevelBestSpeed}))

	app.Get("/healthz", s.healthz)
	if s.cfg.OpsAddr == "" {
		app.Get("/metrics", s.metrics.handler())
	}

	api := app.Group("/api/v1", s.sameSite)
	api.Get("/variants", s.listVariants)
	api.Get("/variants/:variant", s.getVariant)
	api.Get("/variants/:variant/card.svg", s.variantCard)
	calls := s.limit(s.apiLimit, "too_many_calls", "too many game calls from this address; try again in a minute")
	// Each game call takes its place in the anonymous plugin processes
	// (admit) before its body is decoded; the analyses have their own
	// pool (analyse.go).
	games := api.Group("/games/:variant", s.requireVariant, calls, anonymous)
	games.Post("/start", s.admit("start"), s.start)
	games.Post("/play", s.admit("play"), s.play)
	games.Post("/view", s.admit("view"), s.view)
	games.Post("/rewind", s.admit("rewind"), s.rewind)
	games.Post("/suggest", s.limit(s.suggestLimit, "too_many_suggests", "too many computer moves asked from this address; try again in a minute"), s.admit("suggest"), s.suggest)
	games.Post("/export", s.admit("export"), s.export)
	games.Post("/import", s.admit("import"), s.importGame)
	games.Post("/analyse", s.analyse)
	games.Post("/analyse/export", s.exportAnalysed)
	games.Post("/analyse/line", s.analyseLine)
	if s.rooms != nil {
		api.Post("/rooms", s.limit(s.roomLimit, "too_many_rooms", "too many rooms created from this address; try again in a minute"), s.createRoom)
		// A room's public record and views are anonymous calls: class API.
		api.Post("/rooms/:room/export", calls, anonymous, s.roomExport)
		api.Post("/rooms/:room/view", calls, anonymous, s.roomView)
		api.Post("/rooms/:room/analyse", calls, s.roomAnalyse)
		api.Post("/rooms/:room/analyse/export", calls, anonymous, s.roomExportAnalysed)
		api.Post("/rooms/:room/analyse/line", calls, anonymous, s.roomAnalyseLine)
		api.Get("/rooms/:room/socket", s.limit(s.socketLimit, "too_many_sockets", "too many sockets opened from this address; try again in a minute"),
			s.clientKeyForSocket, s.sockets.Check, s.sockets.Socket())
	}
	api.Use(s.apiNotFound)

	s.pageRoutes(app)
}
