import { z } from "zod";
import { invalidArgument } from "../core/errors.js";

/** Who an MCP session acts for, fixed when the session starts. */
export interface McpBinding {
  /** The end-user every tool acts for (`--user`, `X-Agentmem-User`); unset = each call names one. */
  readonly user?: string;
  /** Scope agent for every call (`--agent`, `X-Agentmem-Agent`; default empty = all). */
  readonly agent: string;
  /** Scope namespace for every call (`--namespace`, `X-Agentmem-Namespace`; default empty = all). */
  readonly namespace: string;
  /** Whether `erase_user` is offered (admin keys and the local store; the RPC checks anyway). */
  readonly canErase: boolean;
}

/** The scope arguments every tool takes. */
export interface ScopeShape {
  user: z.ZodOptional<z.ZodString>;
  session: z.ZodOptional<z.ZodString>;
}

/**
 * The scope arguments a tool offers: `user` only when the session is not bound to one (the type
 * keeps it optional either way; {@link scopeFor} ignores it in a bound session).
 */
export function scopeShape(binding: McpBinding): ScopeShape {
  const session = z.string().optional().describe("Conversation/session id to narrow to (optional; omit to use all of the user's sessions).");
  const user = z.string().optional().describe("The end-user this call is about (required): a stable id such as `patient_42` or an email.");
  return (binding.user !== undefined ? { session } : { user, session }) as ScopeShape;
}

/** Only the `user` argument (for tools about the whole end-user), absent in a bound session. */
export function userShape(binding: McpBinding): Pick<ScopeShape, "user"> {
  const { user } = scopeShape(binding);
  return (user === undefined ? {} : { user }) as Pick<ScopeShape, "user">;
}

/** The wire scope for a call; a call without an end-user is refused before anything is sent. */
export function scopeFor(binding: McpBinding, args: { user?: string; session?: string }) {
  const user = binding.user ?? args.user ?? "";
  if (user === "") {
    throw invalidArgument("scope.user", "INVALID_SCOPE", "scope.user is required: pass `user`, send an X-Agentmem-User header, or start `agentmem mcp --user ID`");
  }
  return { user, agent: binding.agent, namespace: binding.namespace, session: args.session ?? "" };
}
