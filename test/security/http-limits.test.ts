import * as http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { loadConfig } from "../../src/config.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { type RunningServer, startServer } from "../../src/compose/start-server.js";

// The HTTP body cap (AGENTMEM_MAX_BODY_BYTES) over real HTTP: a body over the cap is refused before
// it is read in full or parsed, whatever the protocol or framing, as oversized input: INVALID_ARGUMENT
// with an ErrorInfo naming the reason, the field and the limit (server/body-cap.ts).
const CAP = 64 * 1024;
const PATH = "/agentmem.v1.MemoryService/Remember";

let dir: string;
let server: RunningServer;
let port: number;
let sessions: Http2SessionManager;
const grpc = () => createClient(MemoryService, createGrpcTransport({ baseUrl: server.url, sessionManager: sessions }));
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-limits-"));
  const config = loadConfig({ data: dir, port: 0, embedder: "hash" }, { AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "silent", AGENTMEM_MAX_BODY_BYTES: String(CAP) });
  server = await startServer(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
  port = server.port;
  sessions = new Http2SessionManager(server.url);
});
afterAll(async () => {
  sessions.abort();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  body: { code?: string; message?: string; details?: { type: string; value: string }[] };
}

/** POSTs Connect JSON; `declaredLength` sends that Content-Length, `chunked` none (chunked framing). */
function post(body: string, options: { declaredLength?: number; chunked?: boolean; sendBytes?: number } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { "content-type": "application/json" };
    if (!options.chunked) headers["content-length"] = options.declaredLength ?? Buffer.byteLength(body);
    const req = http.request({ host: "127.0.0.1", port, path: PATH, method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "{}") as Reply["body"] });
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)));
    const bytes = Buffer.from(body);
    if (options.sendBytes !== undefined) {
      // Send only the head of the body and never finish: the server must answer anyway.
      req.write(bytes.subarray(0, options.sendBytes));
      return;
    }
    for (let i = 0; i < bytes.length; i += 16 * 1024) req.write(bytes.subarray(i, i + 16 * 1024));
    req.end();
  });
}

const remember = (content: string, user = "limits") => JSON.stringify({ scope: { user }, content });

describe("HTTP body cap", () => {
  it("refuses a body over the cap with invalid_argument and an ErrorInfo (Content-Length or chunked)", async () => {
    const big = remember("x".repeat(CAP * 3));
    for (const reply of [await post(big), await post(big, { chunked: true })]) {
      expect(reply.body.code).toBe("invalid_argument");
      expect(reply.status).toBe(400);
      const info = reply.body.details?.find((d) => d.type === "google.rpc.ErrorInfo");
      expect(info).toBeDefined();
      const decoded = fromBinary(ErrorInfoSchema, Buffer.from(info?.value ?? "", "base64"));
      expect(decoded.reason).toBe("LIMIT_EXCEEDED");
      expect(decoded.metadata).toMatchObject({ field: "body", limit: String(CAP) });
    }
  });

  it("answers a declared oversize body before reading it", async () => {
    const reply = await post(remember("y".repeat(1000)), { declaredLength: 100 * 2 ** 20, sendBytes: 1000 });
    expect(reply.body.code).toBe("invalid_argument");
    expect(reply.body.message).toContain(String(100 * 2 ** 20));
  });

  it("applies to gRPC over HTTP/2 too, and a body under the cap is still validated with a reason", async () => {
    const client = grpc();
    const error = await client.remember({ scope: { user: "limits" }, content: "z".repeat(CAP * 2) }).catch((e: unknown) => ConnectError.from(e));
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect((error as ConnectError).findDetails(ErrorInfoSchema)[0]?.reason).toBe("LIMIT_EXCEEDED");
    expect((error as ConnectError).findDetails(ErrorInfoSchema)[0]?.metadata.field).toBe("body");
    const underCap = await client.remember({ scope: { user: "limits" }, content: "w".repeat(40_000) }).catch((e: unknown) => ConnectError.from(e));
    // Over a field limit, not the body cap: bad input, not capacity.
    expect((underCap as ConnectError).code).toBe(Code.InvalidArgument);
    expect((underCap as ConnectError).findDetails(ErrorInfoSchema)[0]?.reason).toBe("LIMIT_EXCEEDED");
    const json = await post(remember("v".repeat(40_000)));
    expect(json.body.code).toBe("invalid_argument");
    expect(json.body.details?.map((d) => d.type)).toContain("google.rpc.ErrorInfo");
  });

  it("stored nothing from any refused body, and the server still serves", async () => {
    const ok = await post(remember("a normal turn"));
    expect(ok.status).toBe(200);
    const history = await grpc().history({ scope: { user: "limits" } });
    expect(history.turns.map((turn) => turn.content)).toEqual(["a normal turn"]);
  });
});
