package server

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the host's Prometheus series, on a registry of their own so
// tests can build as many servers as they like.
type Metrics struct {
	Registry       *prometheus.Registry
	requests       *prometheus.CounterVec
	duration       *prometheus.HistogramVec
	PluginRestarts *prometheus.CounterVec
}

// NewMetrics registers the series.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "banmen_http_requests_total", Help: "HTTP requests by route and status.",
	}, []string{"route", "status"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "banmen_http_request_seconds", Help: "HTTP request latency by route.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.PluginRestarts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "banmen_plugin_restarts_total", Help: "Rules plugin process restarts.",
	}, []string{"plugin"})
	m.Registry.MustRegister(m.requests, m.duration, m.PluginRestarts,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) middleware(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	route := c.Route().Path // the pattern, never the raw path: bounded label values
	if err != nil {
		// Answer the error here, so the status counted is the one sent.
		err = c.App().ErrorHandler(c, err)
	}
	status := c.Response().StatusCode()
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(time.Since(start).Seconds())
	return err
}

func (m *Metrics) handler() fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
}
