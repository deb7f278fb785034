import * as http from "node:http";
import * as http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackName } from "../../src/server/loopback-only.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

let dev: RealServer;
let keyed: RealServer;
beforeAll(async () => {
  [dev, keyed] = await Promise.all([startRealServer(), startRealServer({ apiKeys: "host-test-key-0123456789:acme:admin" })]);
});
afterAll(async () => {
  await Promise.all([dev?.close(), keyed?.close()]);
});

/** A Connect JSON call over HTTP/1.1 with chosen Host / Origin headers; resolves with the status. */
function call(server: RealServer, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: server.server.port, method: "POST", path, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(path.endsWith("Export") ? '{"externalId":"sam"}' : '{"scope":{"user":"sam"}}');
  });
}

const LIST = "/agentmem.v1.MemoryService/ListMemories";
const EXPORT = "/agentmem.v1.PrivacyService/Export";

describe("dev mode answers loopback Host headers only (DNS rebinding)", () => {
  it("refuses a foreign Host for ListMemories and Export, and a foreign Origin", async () => {
    const port = dev.server.port;
    for (const path of [LIST, EXPORT]) {
      const rebound = await call(dev, path, { host: `attacker.example:${port}` });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body)).toMatchObject({ code: "permission_denied" });
      expect((await call(dev, path, { host: `127.0.0.1:${port}`, origin: "http://attacker.example" })).status).toBe(403);
      expect((await call(dev, path, { host: `localhost:${port}` })).status).toBe(200);
      expect((await call(dev, path, { host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    }
  });

  it("checks :authority on HTTP/2 too", async () => {
    const session = http2.connect(dev.url);
    const status = (authority: string) =>
      new Promise<number>((resolve, reject) => {
        const s = session.request({ ":method": "POST", ":path": LIST, ":authority": authority, "content-type": "application/json" });
        s.on("response", (h) => resolve(Number(h[":status"])));
        s.on("error", reject);
        s.resume();
        s.end('{"scope":{"user":"sam"}}');
      });
    expect(await status("attacker.example")).toBe(403);
    expect(await status(`[::1]:${dev.server.port}`)).toBe(200);
    session.close();
  });

  it("leaves keyed servers to the API key (any Host)", async () => {
    const res = await call(keyed, LIST, { host: "memory.example.com" });
    expect(res.status).toBe(401);
  });

  it("knows loopback names", () => {
    for (const name of ["localhost", "app.localhost", "127.0.0.1", "127.8.9.10", "[::1]", "::1"]) expect(isLoopbackName(name)).toBe(true);
    for (const name of ["attacker.example", "127.0.0.1.nip.io", "0.0.0.0", "10.0.0.1", "[::2]", ""]) expect(isLoopbackName(name)).toBe(false);
  });
});
