// Package wire is the protocol between the Banmen host and a rules plugin:
// the protobuf messages and gRPC service generated from wire.proto (the
// generated code is committed; regenerate with `make proto`), the go-plugin
// handshake, and the conversions between the contract's types and their wire
// form. Nothing here is exported outside the sdk: plugin authors and the host
// only ever see sdk types.
package wire
