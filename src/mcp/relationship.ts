import { GetStateResponseSchema, ListThirdPartiesResponseSchema } from "../gen/agentmem/v1/relational_service_pb.js";
import type { McpBackend } from "./backend.js";
import { messageJson } from "./tool-result.js";

/** Scope of one end-user, as {@link scopeFor} builds it. */
interface UserScope {
  user: string;
  agent: string;
  namespace: string;
}

/** The relational state and the third parties of one end-user (two read RPCs). */
export async function relationship(backend: McpBackend, scope: UserScope): Promise<Record<string, unknown>> {
  const whole = { user: scope.user, agent: scope.agent, namespace: scope.namespace };
  const [state, people] = await Promise.all([
    backend.relational.getState({ scope: whole }, backend.call),
    backend.relational.listThirdParties({ scope: whole, pageSize: 100 }, backend.call),
  ]);
  return { ...messageJson(GetStateResponseSchema, state), thirdParties: messageJson(ListThirdPartiesResponseSchema, people).thirdParties ?? [] };
}
