import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ConversationService } from "../gen/agentmem/v1/conversation_service_pb.js";
import { DriftService } from "../gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../gen/agentmem/v1/memory_service_pb.js";
import { RelationalService } from "../gen/agentmem/v1/relational_service_pb.js";

const KEY_STORAGE = "agentmem.apiKey";

/** The API key saved in this browser ("" when none: dev mode). */
export function storedKey(): string {
  return localStorage.getItem(KEY_STORAGE) ?? "";
}

/** Saves the API key in this browser, or forgets it when empty. */
export function saveKey(key: string): void {
  if (key.trim() === "") localStorage.removeItem(KEY_STORAGE);
  else localStorage.setItem(KEY_STORAGE, key.trim());
}

/** The generated clients the page uses, over Connect (JSON) to the page's own origin. */
export interface Api {
  memory: Client<typeof MemoryService>;
  relational: Client<typeof RelationalService>;
  drift: Client<typeof DriftService>;
  conversations: Client<typeof ConversationService>;
}

/** Creates the clients; the key is read on every call, so saving a new one takes effect at once. */
export function createApi(baseUrl: string = location.origin): Api {
  const auth: Interceptor = (next) => (req) => {
    const key = storedKey();
    if (key) req.header.set("authorization", `Bearer ${key}`);
    return next(req);
  };
  const transport = createConnectTransport({ baseUrl, interceptors: [auth] });
  return {
    memory: createClient(MemoryService, transport),
    relational: createClient(RelationalService, transport),
    drift: createClient(DriftService, transport),
    conversations: createClient(ConversationService, transport),
  };
}

/** How a failed call should be shown. */
export interface Failure {
  kind: "unimplemented" | "auth" | "error";
  text: string;
}

/** Turns any error from a call into one line for the page. */
export function describeError(error: unknown, rpc: string): Failure {
  const e = ConnectError.from(error);
  if (e.code === Code.Unimplemented) return { kind: "unimplemented", text: `Not available on this server yet: ${rpc} answers UNIMPLEMENTED.` };
  if (e.code === Code.Unauthenticated) return { kind: "auth", text: `${rpc}: ${e.rawMessage} — set an API key (top right).` };
  if (e.code === Code.PermissionDenied) return { kind: "auth", text: `${rpc}: ${e.rawMessage}` };
  return { kind: "error", text: `${rpc} failed (${Code[e.code]}): ${e.rawMessage}` };
}
