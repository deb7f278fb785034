import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";

/** The HTTP/2 client connection preface (RFC 9113 §3.4): how an h2c prior-knowledge client opens. */
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS, guardHttp1, guardHttp2Session } from "./connection-guard.js";

/** A request handler that serves both HTTP/1.1 and HTTP/2, such as `connectNodeAdapter(...)`. */
export type DualHandler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

/** The subset of a pino logger the listener writes to. */
export interface ListenerLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Options for {@link createListener}. */
export interface ListenerOptions {
  /** Serves every request, whatever the HTTP version. */
  handler: DualHandler;
  /** Receives connection errors and forced shutdowns. Default: no logging. */
  logger?: ListenerLogger;
  /** Deadlines and caps per connection (default `DEFAULT_CONNECTION_LIMITS`). */
  limits?: ConnectionLimits;
}

/** One TCP port that serves HTTP/1.1 and cleartext HTTP/2 (prior knowledge). */
export interface Listener {
  /** Binds host:port (port 0 picks a free port) and resolves with the bound port. */
  listen(host: string, port: number): Promise<{ port: number }>;
  /**
   * Stops accepting connections, lets in-flight requests finish for up to `graceMs`
   * (default 10 000), then destroys whatever is left. Idle keep-alive connections close at once.
   */
  close(graceMs?: number): Promise<void>;
}

/** Creates a {@link Listener} that sniffs each connection for the HTTP/2 preface. */
export function createListener(options: ListenerOptions): Listener {
  const { handler, logger } = options;
  const limits = options.limits ?? DEFAULT_CONNECTION_LIMITS;
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  const h2Sockets = new Set<net.Socket>();
  // In-flight HTTP/1.1 responses per socket; a socket absent from this map is idle or undecided.
  const h1Active = new Map<net.Socket, Set<http.ServerResponse>>();
  let closing = false;
  let closed: Promise<void> | undefined;
  let onDrained: (() => void) | undefined;

  const h1 = http.createServer((req, res) => {
    const socket = req.socket;
    const active = h1Active.get(socket) ?? new Set<http.ServerResponse>();
    h1Active.set(socket, active.add(res));
    if (closing) res.setHeader("Connection", "close");
    res.once("close", () => {
      active.delete(res);
      if (active.size > 0) return;
      h1Active.delete(socket);
      if (closing) socket.end();
    });
    handler(req, res);
  });
  const h2 = http2.createServer({ settings: { maxConcurrentStreams: limits.maxConcurrentStreams } }, handler);
  h2.on("session", (session) => {
    guardHttp2Session(session, limits, logger);
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    if (closing) session.close();
  });
  h2.on("sessionError", (err) => logger?.warn({ err }, "http2 session error"));

  // No Nagle: a small response must not wait for the peer's delayed ACK (HTTP/1.1 and h2 both answer in small writes).
  const tcp = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      h2Sockets.delete(socket);
      if (sockets.size === 0) onDrained?.();
    });
    socket.on("error", (err) => logger?.debug({ err }, "connection error"));
    // A connection that never says a word must not hold a socket forever.
    const silent = (): void => void socket.destroy();
    socket.setTimeout(limits.headersTimeoutMs, silent);
    sniff(socket, () => {
      socket.setTimeout(0);
      socket.off("timeout", silent);
    });
  });

  /** Reads until the first bytes rule the preface in or out, puts them back, and hands off. */
  function sniff(socket: net.Socket, decided: () => void, seen = Buffer.alloc(0)): void {
    socket.once("readable", () => {
      const chunk: Buffer | null = socket.read();
      if (chunk === null) return sniff(socket, decided, seen);
      const head = Buffer.concat([seen, chunk]);
      const n = Math.min(head.length, PREFACE.length);
      const isH2 = head.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && head.length < PREFACE.length) return sniff(socket, decided, head);
      decided();
      socket.unshift(head);
      if (isH2) h2Sockets.add(socket);
      // Node arms its own header/request timeouts only for sockets its server accepted itself.
      else guardHttp1(socket, h1, limits, logger);
      (isH2 ? h2 : h1).emit("connection", socket);
    });
  }

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        // Past the cap, new connections are closed at once (Node's `maxConnections`).
        tcp.maxConnections = limits.maxConnections;
        tcp.once("error", reject);
        tcp.listen(port, host, () => {
          tcp.off("error", reject);
          resolve({ port: (tcp.address() as net.AddressInfo).port });
        });
      });
    },
    close(graceMs = 10_000) {
      closed ??= shutdown(graceMs);
      return closed;
    },
  };

  /** Stops accepting, drains in-flight requests for up to `graceMs`, then forces the rest. */
  async function shutdown(graceMs: number): Promise<void> {
    closing = true;
    if (tcp.listening) tcp.close();
    const drained = new Promise<void>((resolve) => {
      onDrained = resolve;
      if (sockets.size === 0) resolve();
    });
    for (const session of sessions) session.close();
    for (const socket of sockets) {
      const active = h1Active.get(socket);
      if (active === undefined && !h2Sockets.has(socket)) socket.destroy();
      for (const res of active ?? []) if (!res.headersSent) res.setHeader("Connection", "close");
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), graceMs);
    });
    const timedOut = await Promise.race([drained.then(() => false), expired]);
    clearTimeout(timer);
    if (!timedOut) return;
    logger?.warn({ sockets: sockets.size, graceMs }, "grace period over, destroying connections");
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
    await drained;
  }
}
