import { execFile } from "node:child_process";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import type { Writable } from "node:stream";
import { promisify } from "node:util";
import { fromBinary, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, createClient, type ConnectRouter, type Transport } from "@connectrpc/connect";
import {
  connectNodeAdapter,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriftService, file_agentmem_v1_drift_service } from "../../src/gen/agentmem/v1/drift_service_pb.js";
import { MemoryService, file_agentmem_v1_memory_service } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService, file_agentmem_v1_privacy_service } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService, file_agentmem_v1_relational_service } from "../../src/gen/agentmem/v1/relational_service_pb.js";
import { Health, HealthCheckResponse_ServingStatus as Status, file_grpc_health_v1_health } from "../../src/gen/grpc/health/v1/health_pb.js";
import * as v1 from "../../src/gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../src/gen/grpc/reflection/v1alpha/reflection_pb.js";
import { registerHealth } from "../../src/server/health.js";
import { createListener, type DualHandler, type Listener } from "../../src/server/listener.js";
import { registerReflection } from "../../src/server/reflection.js";

const run = promisify(execFile);
const services = [Health, MemoryService, DriftService, RelationalService, PrivacyService];
const files: DescFile[] = [
  file_grpc_health_v1_health,
  file_agentmem_v1_memory_service,
  file_agentmem_v1_drift_service,
  file_agentmem_v1_relational_service,
  file_agentmem_v1_privacy_service,
];

async function serve(handler: DualHandler): Promise<{ listener: Listener; url: string }> {
  const listener = createListener({ handler });
  const { port } = await listener.listen("127.0.0.1", 0);
  return { listener, url: `http://127.0.0.1:${port}` };
}

const buf = (...args: string[]) => run("node_modules/.bin/buf", ["curl", "--http2-prior-knowledge", ...args]);
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
async function* from<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}
const fileNames = (protos: Uint8Array[]) => protos.map((b) => fromBinary(FileDescriptorProtoSchema, b).name);

/** Forwards TCP, but delivers the client's first 5 bytes alone, 50 ms before the rest. */
async function trickleProxy(target: string): Promise<{ url: string; server: net.Server }> {
  const { port } = new URL(target);
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), "127.0.0.1");
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    upstream.pipe(client);
    client.once("data", (first: Buffer) => {
      client.pause();
      upstream.write(first.subarray(0, 5));
      setTimeout(() => upstream.write(first.subarray(5), () => client.pipe(upstream)), 50);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, server };
}

describe("transport: one port for HTTP/1.1 and h2c", () => {
  let listener: Listener;
  let url: string;
  let serving = true;
  beforeAll(async () => {
    const routes = (router: ConnectRouter) => {
      registerHealth(router, () => (serving ? "SERVING" : "NOT_SERVING"));
      registerReflection(router, files, services.map((s) => s.typeName));
    };
    ({ listener, url } = await serve(connectNodeAdapter({ routes })));
  });
  afterAll(() => listener.close(2_000));

  it("answers Connect JSON over HTTP/1.1 to plain fetch", async () => {
    const res = await fetch(`${url}/grpc.health.v1.Health/Check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "SERVING" });
  });

  it.each<[string, (baseUrl: string) => Transport]>([
    ["gRPC over h2c", (baseUrl) => createGrpcTransport({ baseUrl })],
    ["gRPC-Web over HTTP/1.1", (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" })],
    ["Connect over h2c", (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "2" })],
    ["Connect over HTTP/1.1", (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "1.1" })],
  ])("answers Health over %s, also when the first bytes arrive in pieces", async (_, transport) => {
    const proxy = await trickleProxy(url);
    for (const baseUrl of [url, proxy.url]) {
      const health = createClient(Health, transport(baseUrl));
      expect((await health.check({})).status).toBe(Status.SERVING);
      expect((await health.check({ service: "agentmem.v1.MemoryService" })).status).toBe(Status.SERVING);
      await expect(health.check({ service: "nope.Service" })).rejects.toMatchObject({ code: Code.NotFound });
    }
    proxy.server.close();
  });

  it("streams Health.Watch changes until the client aborts", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: url }));
    const abort = new AbortController();
    const stream = health.watch({ service: "" }, { signal: abort.signal })[Symbol.asyncIterator]();
    expect((await stream.next()).value?.status).toBe(Status.SERVING);
    serving = false;
    expect((await stream.next()).value?.status).toBe(Status.NOT_SERVING);
    expect((await health.check({})).status).toBe(Status.NOT_SERVING);
    serving = true;
    abort.abort();
    await expect(stream.next()).rejects.toMatchObject({ code: Code.Canceled });
  });

  it("serves reflection v1 and v1alpha with transitive dependencies", async () => {
    const transport = createGrpcTransport({ baseUrl: url });
    const requests = [
      { messageRequest: { case: "listServices", value: "" } },
      { messageRequest: { case: "fileContainingSymbol", value: "grpc.health.v1.Health" } },
      { messageRequest: { case: "fileContainingSymbol", value: "agentmem.v1.MemoryService.Recall" } },
      { messageRequest: { case: "fileContainingSymbol", value: "no.such.Thing" } },
    ] as const;
    const answers = [
      await collect(createClient(v1.ServerReflection, transport).serverReflectionInfo(from([...requests]))),
      await collect(createClient(v1alpha.ServerReflection, transport).serverReflectionInfo(from([...requests]))),
    ];
    for (const [list, health, memory, missing] of answers) {
      expect(list.messageResponse.case).toBe("listServicesResponse");
      const names = list.messageResponse.case === "listServicesResponse" ? list.messageResponse.value.service : [];
      expect(names.map((s) => s.name)).toEqual(expect.arrayContaining(services.map((s) => s.typeName)));
      expect(health.messageResponse.case).toBe("fileDescriptorResponse");
      if (health.messageResponse.case === "fileDescriptorResponse") {
        expect(fileNames(health.messageResponse.value.fileDescriptorProto)).toEqual(["grpc/health/v1/health.proto"]);
      }
      if (memory.messageResponse.case !== "fileDescriptorResponse") throw new Error("no file for Recall");
      const memoryFiles = fileNames(memory.messageResponse.value.fileDescriptorProto);
      expect(memoryFiles[0]).toBe("agentmem/v1/memory_service.proto");
      expect(memoryFiles).toEqual(expect.arrayContaining(["agentmem/v1/common.proto", "google/protobuf/timestamp.proto"]));
      expect(missing.messageResponse).toMatchObject({ case: "errorResponse", value: { errorCode: 5 } });
    }
  });

  it("lets buf curl list methods and call Health.Check by reflection alone", async () => {
    const { stdout } = await buf("--list-methods", url);
    const methods = stdout.split("\n");
    for (const m of ["grpc.health.v1.Health/Check", "agentmem.v1.MemoryService/Recall", "agentmem.v1.DriftService/Check",
      "agentmem.v1.RelationalService/Process", "agentmem.v1.PrivacyService/Erase"]) {
      expect(methods).toContain(m);
    }
    const check = await buf("--reflect", "-d", "{}", `${url}/grpc.health.v1.Health/Check`);
    expect(JSON.parse(check.stdout)).toEqual({ status: "SERVING" });
  }, 30_000);
});

describe("transport: close()", () => {
  it("finishes in-flight HTTP/1.1 and HTTP/2 requests, drops idle and silent connections, then resolves", async () => {
    const events: string[] = [];
    let arrived = 0;
    const { listener, url } = await serve((req, res) => {
      if (req.url !== "/slow") return void res.end("quick");
      arrived++;
      const body: Writable = res;
      body.write("do"); // headers are out: only closing the socket afterwards can end the keep-alive
      setTimeout(() => res.end("ne", () => events.push("responded")), 300);
    });
    const idleAgent = new http.Agent({ keepAlive: true });
    await new Promise((resolve) => http.get(`${url}/quick`, { agent: idleAgent }, (r) => r.resume().on("end", resolve)));
    const silent = net.connect(Number(new URL(url).port), "127.0.0.1");
    const session = http2.connect(url);
    const get = (path: string) =>
      new Promise<string>((resolve, reject) => {
        let body = "";
        const stream = session.request({ ":path": path });
        stream.on("data", (chunk: Buffer) => (body += chunk.toString())).on("end", () => resolve(body)).on("error", reject);
      });
    expect(await get("/quick")).toBe("quick");
    const inFlight = [fetch(`${url}/slow`).then((r) => r.text()), get("/slow")];
    await expect.poll(() => arrived).toBe(2);
    const started = Date.now();
    await listener.close(5_000);
    events.push("closed");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await Promise.all(inFlight)).toEqual(["done", "done"]);
    expect(events).toEqual(["responded", "responded", "closed"]);
    await expect(fetch(`${url}/quick`)).rejects.toThrow();
    session.destroy();
    idleAgent.destroy();
    silent.destroy();
  });

  it("destroys what outlives the grace period", async () => {
    let arrived = false;
    const { listener, url } = await serve(() => void (arrived = true));
    const hanging = expect(fetch(`${url}/hang`)).rejects.toThrow();
    await expect.poll(() => arrived).toBe(true);
    const started = Date.now();
    await listener.close(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    await hanging;
  });
});
