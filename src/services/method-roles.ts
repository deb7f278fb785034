import type { Role } from "../core/principal.js";

// The role each RPC needs. Anything not listed (health, reflection) is public; any agentmem RPC
// missing here needs admin, so a new RPC is closed until someone decides.
const READ = [
  "MemoryService/Recall",
  "MemoryService/Search",
  "MemoryService/PromptBlock",
  "MemoryService/GetMemory",
  "MemoryService/ListMemories",
  "MemoryService/MemoryHistory",
  "MemoryService/History",
  "MemoryService/Stats",
  "MemoryService/Usage",
  "RelationalService/GetState",
  "RelationalService/ListThirdParties",
  "DriftService/GetAnchors",
  "ConversationService/GetConversation",
  "ConversationService/ListConversations",
  "ConversationService/ListMessages",
];
const WRITE = [
  "MemoryService/Remember",
  "MemoryService/RememberBatch",
  "MemoryService/Add",
  "MemoryService/Forget",
  "MemoryService/Rollup",
  "RelationalService/Process",
  "RelationalService/RecordEvent",
  "RelationalService/UpsertThirdParty",
  "DriftService/Check",
  "DriftService/ClearAnchors",
  "ConversationService/CreateConversation",
  "ConversationService/UpdateConversation",
  "ConversationService/DeleteConversation",
  "ConversationService/AppendMessages",
];

const ROLES = new Map<string, Role>([
  ...READ.map((m) => [`agentmem.v1.${m}`, "read"] as const),
  ...WRITE.map((m) => [`agentmem.v1.${m}`, "write"] as const),
]);

const RANK: Record<Role, number> = { read: 0, write: 1, admin: 2 };

/** The role an RPC (`package.Service/Method`) needs, or null when it is public. */
export function requiredRole(method: string): Role | null {
  if (!method.startsWith("agentmem.")) return null;
  return ROLES.get(method) ?? "admin";
}

/** True when `have` includes `need`. */
export function roleAllows(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}
