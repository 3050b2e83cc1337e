// The plugin process: what a Banmen host starts. It speaks go-plugin's
// protocol as a Go plugin's serve.Serve does, over gRPC only:
//
//  1. The host sets BANMEN_PLUGIN (the magic cookie) and
//     PLUGIN_PROTOCOL_VERSIONS; the plugin checks both.
//  2. It serves, on a Unix socket, the wire contract's banmen.wire.v1.Game
//     (protos/wire.proto, sdk/internal/wire/wire.proto's copy, loaded at run time), gRPC's health
//     service (Check of "plugin" answers SERVING) and go-plugin's
//     GRPCController (Shutdown).
//  3. It prints one line, "1|1|unix|<socket>|grpc": go-plugin's core
//     protocol version, the app protocol version, the network, the address,
//     the protocol. Anything it prints after that is logged by the host.
//
// Describe offers no quick channel (an empty channel address), so the host
// makes every call over gRPC. Run by hand, `main.js describe` prints the
// Description.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import * as morris from "./morris";
import { RuleError } from "./state";

const COOKIE_KEY = "BANMEN_PLUGIN";
const COOKIE_VALUE = "6f1d6b0e-banmen-rules-plugin";
const APP_PROTOCOL = "1";

const here = path.join(__dirname, "..");
// The wire contract ships with the plugin (protos/wire.proto, a copy of the
// sdk's that its tests keep equal), so the folder works wherever it is copied.
const wireProto = process.env.BANMEN_WIRE_PROTO || path.join(here, "protos", "wire.proto");

const loaded = grpc.loadPackageDefinition(
  loader.loadSync([wireProto, path.join(here, "protos", "health.proto"), path.join(here, "protos", "controller.proto")], {
    keepCase: true, longs: String, enums: String, defaults: true, arrays: true,
  }),
) as any;

type Handler = (req: any) => any;

/** unary wraps a handler: a RuleError is an answer (its error field), anything else fails the call. */
function unary(fn: Handler): grpc.handleUnaryCall<any, any> {
  return (call, cb) => {
    try {
      cb(null, fn(call.request));
    } catch (e) {
      if (e instanceof RuleError) cb(null, { error: { code: e.code, key: e.key, message: e.message } });
      else cb({ code: grpc.status.INTERNAL, message: String((e as Error)?.stack || e) });
    }
  };
}

function variant(id: string) {
  if (id !== morris.ID) throw new RuleError("unsupported", `this plugin serves no variant ${JSON.stringify(id)}`);
}

function game([state, view]: [Buffer, morris.View], historyFrom = 0) {
  if (historyFrom > 0) view.history = view.history.slice(Math.min(historyFrom, view.history.length));
  return { state, view };
}

const gameService = {
  Describe: unary(() => ({ descriptions_json: [Buffer.from(JSON.stringify(morris.description))], channel: "", channel_token: Buffer.alloc(0) })),
  Start: unary((r) => (variant(r.variant), game(morris.start(r.options)))),
  Play: unary((r) => (variant(r.variant), game(morris.play(r.state, r.seat, r.move), r.history_from))),
  View: unary((r) => (variant(r.variant), { view: game([Buffer.alloc(0), morris.view(r.state)], r.history_from).view })),
  Export: unary((r) => (variant(r.variant), { text: morris.exportGame(r.state, r.format) })),
  Import: unary((r) => (variant(r.variant), game(morris.importGame(r.format, r.text)))),
  Suggest: unary((r) => {
    variant(r.variant);
    throw new RuleError("unsupported", "morris has no computer player");
  }),
  Perft: unary((r) => {
    variant(r.variant);
    throw new RuleError("unsupported", "morris does not count perft");
  }),
};

function serve() {
  const versions = (process.env.PLUGIN_PROTOCOL_VERSIONS || "").split(",");
  if (!versions.includes(APP_PROTOCOL)) {
    process.stderr.write(`the host speaks plugin protocol versions ${versions}, this plugin ${APP_PROTOCOL}\n`);
    process.exit(1);
  }
  const dir = process.env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir();
  const sock = path.join(dir, `banmen-morris-${process.pid}-${Date.now().toString(36)}.sock`);
  const server = new grpc.Server();
  const stop = () => {
    server.forceShutdown();
    fs.rmSync(sock, { force: true });
    process.exit(0);
  };
  server.addService(loaded.banmen.wire.v1.Game.service, gameService);
  server.addService(loaded.grpc.health.v1.Health.service, {
    Check: unary(() => ({ status: "SERVING" })),
  });
  server.addService(loaded.plugin.GRPCController.service, {
    Shutdown: (_call: any, cb: grpc.sendUnaryData<any>) => {
      cb(null, {});
      setImmediate(stop);
    },
  });
  server.bindAsync("unix:" + sock, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      process.stderr.write(`listen on ${sock}: ${err.message}\n`);
      process.exit(1);
    }
    process.stdout.write(`1|${APP_PROTOCOL}|unix|${sock}|grpc\n`);
  });
  for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, stop);
  // A plugin outlives no host: when the parent is gone, so is the plugin.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}

if (process.env[COOKIE_KEY] === COOKIE_VALUE) {
  serve();
} else if (process.argv[2] === "describe") {
  process.stdout.write(JSON.stringify(morris.description, null, 2) + "\n");
} else {
  process.stderr.write("This is a Banmen rules plugin: a Banmen host starts it. Run it with `describe` to see its Description.\n");
  process.exit(1);
}
