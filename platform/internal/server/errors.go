package server

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/banmen/banmen/platform/internal/pluginhost"
	"github.com/banmen/banmen/sdk"
	"github.com/gofiber/fiber/v2"
)

// apiError is a response the handler chose: a status, a stable code and a
// message for people.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func badRequest(msg string) error { return &apiError{fiber.StatusBadRequest, "bad_request", msg} }

func notFound(code, msg string) error { return &apiError{fiber.StatusNotFound, code, msg} }

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
}

// errorHandler is the one place errors become responses: a rule rejection is
// 422 with its code, a bad request 400, an unknown game 404, a crash-looping
// plugin 503, a plugin that did not answer in time 504, anything else 500
// and a log line.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	var (
		ae    *apiError
		fe    *fiber.Error
		unav  *pluginhost.UnavailableError
		tmout *pluginhost.TimeoutError
		busy  *pluginhost.BusyError
	)
	status, body := fiber.StatusInternalServerError, errorDetail{Code: "internal", Message: "something went wrong on our side"}
	if re, ok := sdk.AsRuleError(err); ok {
		status, body = fiber.StatusUnprocessableEntity, errorDetail{Code: re.Code, Key: re.Key, Message: re.Message}
	} else if errors.As(err, &ae) {
		status, body = ae.status, errorDetail{Code: ae.code, Message: ae.message}
	} else if errors.Is(err, pluginhost.ErrUnknownVariant) {
		status, body = fiber.StatusNotFound, errorDetail{Code: "unknown_variant", Message: "no such game"}
	} else if errors.As(err, &unav) {
		c.Set(fiber.HeaderRetryAfter, fmt.Sprint(max(1, int(time.Until(unav.Until).Seconds())+1)))
		status, body = fiber.StatusServiceUnavailable, errorDetail{Code: "variant_unavailable",
			Message: "this game is temporarily unavailable; please try again in a minute"}
	} else if errors.As(err, &busy) {
		c.Set(fiber.HeaderRetryAfter, "1")
		status, body = fiber.StatusServiceUnavailable, errorDetail{Code: "busy",
			Message: "the site is busy with other calls of this kind; please try again in a moment"}
	} else if errors.As(err, &tmout) {
		status, body = fiber.StatusGatewayTimeout, errorDetail{Code: "timeout", Message: "the game did not answer in time; please try again"}
	} else if errors.As(err, &fe) {
		status, body = fe.Code, errorDetail{Code: codeForStatus(fe.Code), Message: fe.Message}
	}
	if status >= 500 && busy == nil {
		s.log.Error("request failed", "method", c.Method(), "path", c.Path(), "status", status, "err", err)
	}
	return c.Status(status).JSON(errorBody{Error: body})
}

func codeForStatus(status int) string {
	switch status {
	case fiber.StatusNotFound:
		return "not_found"
	case fiber.StatusRequestEntityTooLarge:
		return "too_large"
	case fiber.StatusMethodNotAllowed:
		return "method_not_allowed"
	case fiber.StatusBadRequest:
		return "bad_request"
	case fiber.StatusTooManyRequests:
		return "too_many_requests"
	}
	return "error"
}

func (s *Server) apiNotFound(c *fiber.Ctx) error {
	return notFound("not_found", "no such API route: "+c.Method()+" "+c.Path())
}

func (s *Server) logPanic(c *fiber.Ctx, e any) {
	s.log.Error("panic in handler", "path", c.Path(), "panic", fmt.Sprint(e), "stack", string(debug.Stack()))
}

// securityHeaders keeps every page self-contained: no external requests, no
// referrer, no framing. The room page's socket is this host's own, named
// with ws: and wss: (not every browser lets 'self' cover them).
func (s *Server) securityHeaders(c *fiber.Ctx) error {
	connect := "connect-src 'self'"
	if h := string(c.Request().Host()); hostHeader.MatchString(h) {
		connect += " ws://" + h + " wss://" + h
	}
	c.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "+connect+"; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("X-Content-Type-Options", "nosniff")
	return c.Next()
}

// hostHeader is a Host header that may be written into the CSP: a name or
// an address and a port, nothing that could end the directive.
var hostHeader = regexp.MustCompile(`^[A-Za-z0-9.\-]+(:[0-9]+)?$|^\[[0-9A-Fa-f:.]+\](:[0-9]+)?$`)
