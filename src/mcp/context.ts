import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { invalidArgument } from "../core/errors.js";
import type { McpBackend } from "./backend.js";
import { type McpBinding, scopeFor, userShape } from "./binding.js";
import { relationship } from "./relationship.js";
import { toolError } from "./tool-result.js";

/** The URI template of the per-user profile resource. */
export const PROFILE_URI = "agentmem://users/{user}/profile";
const PROFILE_PREFIX = "Profile so far: ";

/** An error for a prompt or resource read, which MCP reports as a JSON-RPC error: code, reason, message. */
function asError(error: unknown): Error {
  const e = toolError(error);
  return new Error(`${e.code}${e.reason ? ` ${e.reason}` : ""}: ${e.message}`);
}

/** The prompt `memory_context` and the resource `agentmem://users/{user}/profile`. */
export function registerContext(server: McpServer, backend: McpBackend, binding: McpBinding): void {
  const { memory, call } = backend;
  server.registerPrompt(
    "memory_context",
    {
      title: "Memory context",
      description: "What you remember about the user that bears on a topic, as a dated block to put before the conversation.",
      argsSchema: {
        ...userShape(binding),
        query: z.string().describe("The topic or the user's latest message."),
        budget_tokens: z.string().optional().describe("Token cap for the block (default 500)."),
      },
    },
    async (args) => {
      try {
        const scope = scopeFor(binding, args);
        const budget = args.budget_tokens === undefined || args.budget_tokens === "" ? 0 : Number(args.budget_tokens);
        if (!Number.isInteger(budget)) throw invalidArgument("budget_tokens", "INVALID_COUNT", "budget_tokens must be a non-negative integer");
        const res = await memory.promptBlock({ scope, query: args.query, budgetTokens: budget }, call);
        const text = res.block === "" ? "Nothing is stored about this user that bears on this topic yet." : `What you remember about the user (dated):\n${res.block}`;
        return { description: `Memory context for ${scope.user}`, messages: [{ role: "user", content: { type: "text", text } }] };
      } catch (error) {
        throw asError(error);
      }
    },
  );

  // A bound session lists (and may read) its own user only.
  const list = async () => ({
    resources: binding.user === undefined ? [] : [{ uri: PROFILE_URI.replace("{user}", encodeURIComponent(binding.user)), name: `${binding.user} profile` }],
  });
  server.registerResource(
    "profile",
    new ResourceTemplate(PROFILE_URI, { list }),
    { title: "User profile", description: "The user's ~120-word profile and relationship state (trust, sentiment, grudge, familiarity, people they mention).", mimeType: "application/json" },
    async (uri, variables) => {
      try {
        const named = decodeURIComponent(String(variables.user ?? ""));
        if (binding.user !== undefined && named !== binding.user) {
          throw invalidArgument("scope.user", "INVALID_SCOPE", `this session is bound to user ${JSON.stringify(binding.user)}`);
        }
        const scope = scopeFor(binding, { user: named });
        // The profile line heads every prompt block; a read key may fetch it this way.
        const [block, state] = await Promise.all([memory.promptBlock({ scope, query: "profile", budgetTokens: 400 }, call), relationship(backend, scope)]);
        const first = block.block.split("\n")[0] ?? "";
        const profile = first.startsWith(PROFILE_PREFIX) ? first.slice(PROFILE_PREFIX.length) : "";
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ user: scope.user, profile, relationship: state }) }] };
      } catch (error) {
        throw asError(error);
      }
    },
  );
}
