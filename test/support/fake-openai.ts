import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: point the `openai` client (or any
 * adapter) at `baseURL`. It serves
 * - `POST /v1/embeddings`: deterministic, *unnormalised* vectors of `dimension` floats derived from
 *   a hash of each input (`encoding_format` `float` or `base64`, `dimensions` honoured); rejects an
 *   empty string like OpenAI does;
 * - `POST /v1/chat/completions`: the scripted answer of `chat(body)`, also as SSE when `stream`;
 * - `GET /v1/models`.
 * Tokens are counted as `ceil(chars / 4)` per text. Every request is recorded, in arrival order.
 */
export interface FakeOpenAI {
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  /** Requests received so far (mutable: tests may clear it with `requests.length = 0`). */
  readonly requests: RecordedRequest[];
  /** Replaces the chat script. */
  setChat(chat: ChatScript): void;
  /** Sets (or with `undefined`, removes) a hook that may answer any request first: fault injection. */
  setIntercept(intercept: Intercept | undefined): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** One request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/embeddings`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or `undefined` for an empty or non-JSON body. */
  body: unknown;
}

/** A raw reply: status and body text (sent as `application/json`). */
export interface FakeReply {
  status: number;
  body: string;
}

/** Answers a chat request: the assistant's content, or a raw reply (e.g. a 500 or a malformed body). */
export type ChatScript = (body: ChatCompletionBody) => string | FakeReply | Promise<string | FakeReply>;

/** Answers any request before routing; `undefined` lets it through. A slow promise simulates a hang. */
export type Intercept = (request: RecordedRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

/** The part of a chat completion request a script usually looks at. */
export interface ChatCompletionBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
  stream?: boolean;
  [key: string]: unknown;
}

/** Options of {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /** Embedding length when the request has no `dimensions`. Default 32. */
  dimension?: number;
  /** Chat script. Default: `"{}"` when JSON is requested, else `"ok"`. */
  chat?: ChatScript;
  /** Fault-injection hook, see {@link Intercept}. Default none. */
  intercept?: Intercept;
}

/** Starts a fake OpenAI server on an ephemeral loopback port. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const dimension = options.dimension ?? 32;
  let chat: ChatScript = options.chat ?? defaultChat;
  let intercept = options.intercept;
  const requests: RecordedRequest[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = await record(req);
    requests.push(request);
    const intercepted = await intercept?.(request);
    if (intercepted) return send(res, intercepted);
    const route = `${request.method} ${request.path}`;
    if (route === "POST /v1/embeddings") return send(res, embeddings(request.body, dimension));
    if (route === "POST /v1/chat/completions") return completions(res, request.body, chat);
    if (route === "GET /v1/models") return send(res, ok({ object: "list", data: [{ id: "fake", object: "model", created: 0, owned_by: "fake" }] }));
    send(res, error(404, `no route ${route}`));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((cause: unknown) => send(res, error(500, cause instanceof Error ? cause.message : String(cause))));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setChat(next) {
      chat = next;
    },
    setIntercept(next) {
      intercept = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** The fake's vector for `text`: the same values `POST /v1/embeddings` returns, before encoding. */
export function fakeEmbedding(text: string, dimension: number): number[] {
  let state = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193);
  state ||= 1; // xorshift never leaves 0.
  const values: number[] = [];
  for (let i = 0; i < dimension; i++) {
    // xorshift32 seeded by the FNV-1a hash of the text: deterministic, spread over (-2, 2).
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    values.push(((state >>> 0) / 0xffffffff) * 4 - 2);
  }
  return values;
}

/** Token count the fake bills for a text. */
export function fakeTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function defaultChat(body: ChatCompletionBody): string {
  return body.response_format?.type === "json_object" ? "{}" : "ok";
}

function embeddings(body: unknown, defaultDimension: number): FakeReply {
  const params = isObject(body) ? body : {};
  const input = typeof params.input === "string" ? [params.input] : params.input;
  if (!Array.isArray(input) || !input.every((text): text is string => typeof text === "string")) {
    return error(400, "input must be a string or an array of strings");
  }
  if (input.length === 0 || input.some((text) => text.length === 0)) return error(400, "'$.input' is invalid");
  const dimension = typeof params.dimensions === "number" ? params.dimensions : defaultDimension;
  const base64 = params.encoding_format === "base64";
  const data = input.map((text, index) => {
    const values = fakeEmbedding(text, dimension);
    const embedding = base64 ? Buffer.from(new Float32Array(values).buffer).toString("base64") : values;
    return { object: "embedding", index, embedding };
  });
  const tokens = input.reduce((sum, text) => sum + fakeTokens(text), 0);
  return ok({ object: "list", data, model: String(params.model), usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

async function completions(res: ServerResponse, body: unknown, chat: ChatScript): Promise<void> {
  if (!isObject(body) || !Array.isArray(body.messages)) return send(res, error(400, "messages is required"));
  const request = body as ChatCompletionBody;
  const answer = await chat(request);
  if (typeof answer !== "string") return send(res, answer);
  const prompt = request.messages.reduce((sum, message) => sum + fakeTokens(String(message.content ?? "")), 0);
  const usage = { prompt_tokens: prompt, completion_tokens: fakeTokens(answer), total_tokens: prompt + fakeTokens(answer) };
  const head = { id: "chatcmpl-fake", created: Math.floor(Date.now() / 1000), model: request.model };
  if (request.stream) return streamAnswer(res, head, answer, usage);
  const message = { role: "assistant", content: answer, refusal: null };
  send(res, ok({ ...head, object: "chat.completion", choices: [{ index: 0, message, finish_reason: "stop", logprobs: null }], usage }));
}

function streamAnswer(res: ServerResponse, head: object, answer: string, usage: object): void {
  const chunk = (choices: object[], extra: object = {}): string =>
    `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices, ...extra })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(chunk([{ index: 0, delta: { role: "assistant", content: answer }, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]));
  res.write(chunk([], { usage }));
  res.end("data: [DONE]\n\n");
}

async function record(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined; // Recorded as "no JSON body"; the route answers 400 where a body is needed.
  }
  const path = (req.url ?? "/").split("?")[0];
  return { method: req.method ?? "GET", path, headers: { ...req.headers }, body };
}

function ok(value: object): FakeReply {
  return { status: 200, body: JSON.stringify(value) };
}

function error(status: number, message: string): FakeReply {
  const type = status >= 500 ? "server_error" : "invalid_request_error";
  return { status, body: JSON.stringify({ error: { message, type, param: null, code: null } }) };
}

function send(res: ServerResponse, reply: FakeReply): void {
  if (res.headersSent) return void res.end();
  res.writeHead(reply.status, { "content-type": "application/json" });
  res.end(reply.body);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
