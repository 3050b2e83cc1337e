// A module outside Banmen's that uses the harness library as
// docs/harness.md shows ("Using it from another Go module"); the harness's
// TestOutsideModule builds and runs its test against the suite's host. The
// replace lines point at this checkout: a module of your own would require
// released versions instead, and needs the sdk's replace too while it uses
// an unreleased checkout (the main module requires the sdk module).
module example.com/outside

go 1.26.0

require github.com/banmen/banmen v0.0.0

require (
	github.com/andybalholm/brotli v1.1.0 // indirect
	github.com/banmen/banmen/sdk v0.0.0 // indirect
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/chromedp/chromedp v0.23.0 // indirect
	github.com/fasthttp/websocket v1.5.8 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/klauspost/compress v1.20.1 // indirect
	github.com/savsgio/gotils v0.0.0-20240303185622-093b76447511 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasthttp v1.52.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.60.0 // indirect
)

replace (
	github.com/banmen/banmen => ../../..
	github.com/banmen/banmen/sdk => ../../../sdk
)
