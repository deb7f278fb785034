import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { CheckResponseSchema } from "../gen/agentmem/v1/drift_service_pb.js";
import { EraseResponseSchema } from "../gen/agentmem/v1/privacy_service_pb.js";
import { ProcessResponseSchema } from "../gen/agentmem/v1/relational_service_pb.js";
import type { McpBackend } from "./backend.js";
import { type McpBinding, scopeFor, scopeShape, userShape } from "./binding.js";
import { timeArg } from "./memory-tools.js";
import { relationship } from "./relationship.js";
import { guarded, jsonResult, messageJson } from "./tool-result.js";

/** process_turn, get_relationship, drift_check and (for admin keys) erase_user. */
export function registerRelationalTools(server: McpServer, backend: McpBackend, binding: McpBinding): void {
  const scope = scopeShape(binding);
  const { relational, drift, privacy, call } = backend;

  server.registerTool(
    "process_turn",
    {
      title: "Process a user message",
      description:
        "The one call per user message: detects emotions and intent, recalls the most relevant memories, updates the relationship (trust, sentiment, grudge, familiarity), stores the exchange, and returns a system prompt with all of it (and a reply when the server has a chat model).",
      inputSchema: {
        ...scope,
        message: z.string().describe("The user's message, verbatim."),
        channel: z.string().optional().describe("Where it came from, e.g. web, sms, voice (optional)."),
        at: z.string().optional().describe("RFC 3339 time of the message when replaying history (default now)."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args) =>
      guarded(async () => {
        const res = await relational.process({ scope: scopeFor(binding, args), message: args.message, channel: args.channel ?? "", at: timeArg("at", args.at) }, call);
        return jsonResult(messageJson(ProcessResponseSchema, res));
      }),
  );

  server.registerTool(
    "get_relationship",
    {
      title: "Get relationship",
      description:
        "How the relationship with the user stands: trust, sentiment, grudge, familiarity (each 0..1), interaction count, first and last contact, and the people the user has mentioned with how they feel about them.",
      inputSchema: userShape(binding),
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => jsonResult(await relationship(backend, scopeFor(binding, args)))),
  );

  server.registerTool(
    "drift_check",
    {
      title: "Drift check",
      description:
        "Keep an agent on task: set the goal and constraints once, then score each draft answer. Returns a verdict (ON_TRACK, NUDGE, CORRECT, BLOCK) and, when intervention is needed, the goal and constraints to steer back to.",
      inputSchema: {
        ...scope,
        goal: z.string().optional().describe("Sets or replaces the goal of this conversation."),
        constraints: z.array(z.string()).optional().describe("Sets or replaces rules the answers must keep."),
        response: z.string().optional().describe("A draft answer to score against the goal."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args) =>
      guarded(async () => {
        const res = await drift.check(
          { scope: scopeFor(binding, args), goal: args.goal ?? "", constraints: args.constraints ?? [], response: args.response ?? "" },
          call,
        );
        return jsonResult(messageJson(CheckResponseSchema, res));
      }),
  );

  if (!binding.canErase) return;
  server.registerTool(
    "erase_user",
    {
      title: "Erase user",
      description:
        "Right to erasure: permanently delete everything stored about the user (memories, transcript, relationship, profile), with an audit record. Irreversible; only when the user asks for it. Needs an admin key.",
      inputSchema: userShape(binding),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await privacy.erase({ externalId: scopeFor(binding, args).user }, call);
        return jsonResult(messageJson(EraseResponseSchema, res));
      }),
  );
}
