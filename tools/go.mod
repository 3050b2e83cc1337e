module github.com/banmen/banmen/tools

go 1.26.0

require (
	github.com/banmen/banmen v0.0.0
	github.com/banmen/banmen/sdk v0.0.0
	github.com/fasthttp/websocket v1.5.8
	github.com/jackc/pgx/v5 v5.12.0
)

require (
	github.com/andybalholm/brotli v1.1.0 // indirect
	github.com/fatih/color v1.13.0 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/hashicorp/go-hclog v1.6.3 // indirect
	github.com/hashicorp/go-plugin v1.8.0 // indirect
	github.com/hashicorp/yamux v0.1.2 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/klauspost/compress v1.20.1 // indirect
	github.com/mattn/go-colorable v0.1.13 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/oklog/run v1.1.0 // indirect
	github.com/savsgio/gotils v0.0.0-20240303185622-093b76447511 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasthttp v1.52.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/grpc v1.85.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// The tools are a module of their own, so that the product builds and tests
// without them; they build against this repository's product and sdk.
replace (
	github.com/banmen/banmen => ../
	github.com/banmen/banmen/sdk => ../sdk
)
