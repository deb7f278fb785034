import type * as http from "node:http";
import * as http2 from "node:http2";
import type * as net from "node:net";

/** Deadlines and caps for every connection the listener accepts. */
export interface ConnectionLimits {
  /** A new connection must finish its first request's headers (or h2 preface) within this (default 20 000). */
  headersTimeoutMs: number;
  /** A request's body must arrive in full within this after its headers (default 60 000). */
  bodyTimeoutMs: number;
  /** An HTTP/1.1 keep-alive connection must send its next request, an h2 session with no open stream its next stream, within this (default 60 000). */
  idleTimeoutMs: number;
  /** Open connections at most; more are closed on accept (default 1 024). */
  maxConnections: number;
  /** HTTP/2 streams open at once per session, advertised in SETTINGS; more are refused (default 100). */
  maxConcurrentStreams: number;
}

/** Safe defaults for {@link ConnectionLimits}. */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  headersTimeoutMs: 20_000,
  bodyTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
  maxConnections: 1_024,
  maxConcurrentStreams: 100,
});

/** Where the guard reports a connection it closed. */
export interface GuardLogger {
  debug(obj: object, msg: string): void;
}

/** One timer per connection: the deadline of the phase it is in. */
class Deadline {
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly expire: (phase: string) => void) {}
  arm(ms: number, phase: string): void {
    this.clear();
    this.timer = setTimeout(() => this.expire(phase), ms);
    this.timer.unref();
  }
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

interface Http1State {
  deadline: Deadline;
  active: number;
}

const http1States = new WeakMap<net.Socket, Http1State>();
const guardedServers = new WeakSet<http.Server>();

/**
 * Arms deadlines on an HTTP/1.1 socket handed to `server` by `emit("connection")`: its first
 * request's headers within `headersTimeoutMs`, each body within `bodyTimeoutMs` of its headers,
 * and the next request within `idleTimeoutMs` of the last response. Past one, the socket is destroyed.
 */
export function guardHttp1(socket: net.Socket, server: http.Server, limits: ConnectionLimits, logger?: GuardLogger): void {
  if (!guardedServers.has(server)) {
    guardedServers.add(server);
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => onHttp1Request(req, res, limits));
  }
  const deadline = new Deadline((phase) => {
    logger?.debug({ phase, remote: socket.remoteAddress }, "connection deadline passed, closing it");
    socket.destroy();
  });
  http1States.set(socket, { deadline, active: 0 });
  deadline.arm(limits.headersTimeoutMs, "headers");
  socket.once("close", () => deadline.clear());
}

function onHttp1Request(req: http.IncomingMessage, res: http.ServerResponse, limits: ConnectionLimits): void {
  const state = http1States.get(req.socket);
  if (!state) return;
  state.active++;
  state.deadline.arm(limits.bodyTimeoutMs, "body");
  // The response phase has no deadline (a server stream may run long); the peer's reads pace it.
  req.once("end", () => state.deadline.clear());
  res.once("close", () => {
    state.active--;
    if (state.active === 0) state.deadline.arm(limits.idleTimeoutMs, "idle");
  });
}

/**
 * Arms deadlines on an HTTP/2 session: while it has no open stream it is closed after
 * `idleTimeoutMs` (its first stream included), and a stream whose request body has not ended
 * `bodyTimeoutMs` after its headers is reset. The stream cap itself is the server's SETTINGS.
 */
export function guardHttp2Session(session: http2.ServerHttp2Session, limits: ConnectionLimits, logger?: GuardLogger): void {
  let open = 0;
  const idle = new Deadline(() => {
    logger?.debug({ phase: "idle" }, "http2 session idle past its deadline, closing it");
    session.close();
    // A peer that ignores GOAWAY is cut off.
    setTimeout(() => session.destroy(), limits.headersTimeoutMs).unref();
  });
  idle.arm(limits.idleTimeoutMs, "idle");
  session.on("stream", (stream: http2.ServerHttp2Stream) => {
    open++;
    idle.clear();
    const body = new Deadline(() => {
      logger?.debug({ phase: "body" }, "http2 request body past its deadline, resetting the stream");
      stream.close(http2.constants.NGHTTP2_CANCEL);
    });
    if (!stream.endAfterHeaders) body.arm(limits.bodyTimeoutMs, "body");
    stream.once("end", () => body.clear());
    stream.once("close", () => {
      body.clear();
      open--;
      if (open === 0 && !session.closed && !session.destroyed) idle.arm(limits.idleTimeoutMs, "idle");
    });
  });
  session.once("close", () => idle.clear());
}
