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
	app.Get("/metrics", s.metrics.handler())

	api := app.Group("/api/v1")
	api.Get("/variants", s.listVariants)
	api.Get("/variants/:variant", s.getVariant)
	api.Get("/variants/:variant/card.svg", s.variantCard)
	games := api.Group("/games/:variant", s.requireVariant)
	games.Post("/start", s.start)
	games.Post("/play", s.play)
	games.Post("/view", s.view)
	games.Post("/rewind", s.rewind)
	games.Post("/suggest", s.suggest)
	games.Post("/export", s.export)
	games.Post("/import", s.importGame)
	games.Post("/analyse", s.analyse)
	games.Post("/analyse/export", s.exportAnalysed)
	if s.rooms != nil {
		api.Post("/rooms", s.createRoom)
		api.Post("/rooms/:room/export", s.roomExport)
		api.Post("/rooms/:room/view", s.roomView)
		api.Post("/rooms/:room/analyse", s.roomAnalyse)
		api.Get("/rooms/:room/socket", s.sockets.Check, s.sockets.Socket())
	}
	api.Use(s.apiNotFound)

	s.pageRoutes(app)
}
