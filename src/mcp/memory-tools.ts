import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { invalidArgument } from "../core/errors.js";
import { FactType } from "../gen/agentmem/v1/common_pb.js";
import {
  AddResponseSchema,
  ForgetResponseSchema,
  HistoryResponseSchema,
  PromptBlockResponseSchema,
  RecallResponseSchema,
  SearchResponseSchema,
} from "../gen/agentmem/v1/memory_service_pb.js";
import type { McpBackend } from "./backend.js";
import { type McpBinding, scopeFor, scopeShape } from "./binding.js";
import { guarded, jsonResult, messageJson } from "./tool-result.js";

const FACT_TYPES = ["semantic", "preference", "summary", "entity", "anchor", "event"] as const;
const FACT_TYPE: Record<(typeof FACT_TYPES)[number], FactType> = {
  semantic: FactType.SEMANTIC,
  preference: FactType.PREFERENCE,
  summary: FactType.SUMMARY,
  entity: FactType.ENTITY,
  anchor: FactType.ANCHOR,
  event: FactType.EVENT,
};

/** An optional RFC 3339 time argument as a protobuf Timestamp. */
export function timeArg(field: string, value: string | undefined) {
  if (value === undefined || value === "") return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalidArgument(field, "INVALID_TIMESTAMP", `${field} must be an RFC 3339 time such as 2025-03-01T00:00:00Z`);
  return timestampFromDate(date);
}

const asOf = z.string().optional().describe("RFC 3339 time: answer with what the store believed then (optional).");
const asOfEvent = z.string().optional().describe("RFC 3339 time: answer with what was true in the world then (optional).");

/** remember, recall, add_facts, search_facts, prompt_block, forget, history. */
export function registerMemoryTools(server: McpServer, backend: McpBackend, binding: McpBinding): void {
  const scope = scopeShape(binding);
  const { memory, call } = backend;

  server.registerTool(
    "remember",
    {
      title: "Remember",
      description:
        "Store one thing the user said or that happened, verbatim, in long-term memory. Use it for anything worth recalling later. Storing the same text again updates it instead of duplicating it.",
      inputSchema: {
        ...scope,
        text: z.string().describe("What to remember, as a sentence that stands alone (e.g. 'I moved to Berlin in March')."),
        role: z.enum(["user", "assistant", "system", "tool"]).optional().describe("Who said it (default user)."),
        fact_type: z.enum(FACT_TYPES).optional().describe("Kind of memory (default semantic; preference for likes and dislikes)."),
        pinned: z.boolean().optional().describe("Pinned memories survive forget and retention caps."),
        tags: z.record(z.string(), z.string()).optional().describe("Free key/value labels to filter by later."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.remember(
          {
            scope: scopeFor(binding, args),
            content: args.text,
            role: args.role ?? "",
            factType: args.fact_type ? FACT_TYPE[args.fact_type] : FactType.UNSPECIFIED,
            pinned: args.pinned ?? false,
            tags: args.tags ?? {},
          },
          call,
        );
        return jsonResult({ memoryId: res.memoryId });
      }),
  );

  server.registerTool(
    "recall",
    {
      title: "Recall",
      description:
        "Find the user's stored memories that match a question or topic, by meaning and by words. Each hit has the text, a score and a match strength (strong / moderate / weak). Call it before answering anything that may depend on what the user told you before.",
      inputSchema: {
        ...scope,
        query: z.string().describe("What to look for, in natural language."),
        k: z.number().int().optional().describe("How many hits (default 10, at most 100)."),
        include_history: z.boolean().optional().describe("Also return older versions that a hit replaced."),
        as_of: asOf,
        as_of_event: asOfEvent,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.recall(
          {
            scope: scopeFor(binding, args),
            query: args.query,
            k: args.k ?? 0,
            includeHistory: args.include_history ?? false,
            asOf: timeArg("as_of", args.as_of),
            asOfEvent: timeArg("as_of_event", args.as_of_event),
          },
          call,
        );
        return jsonResult(messageJson(RecallResponseSchema, res));
      }),
  );

  server.registerTool(
    "add_facts",
    {
      title: "Add facts",
      description:
        "Extract lasting facts from conversation messages and store them. A new fact that contradicts a stored one closes the old one (it stays in history, marked outdated); duplicates are skipped. Returns the facts added and the ones superseded.",
      inputSchema: {
        ...scope,
        messages: z
          .array(
            z.object({
              role: z.enum(["user", "assistant", "system", "tool"]).describe("Who wrote the message."),
              content: z.string().describe("The message text."),
              name: z.string().optional().describe("Speaker name (optional)."),
            }),
          )
          .describe("The conversation turns to learn from, oldest first."),
        observed_at: z.string().optional().describe("RFC 3339 time the messages were written (default now)."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.add(
          {
            scope: scopeFor(binding, args),
            messages: args.messages.map((m) => ({ role: m.role, content: m.content, name: m.name ?? "" })),
            observedAt: timeArg("observed_at", args.observed_at),
          },
          call,
        );
        return jsonResult(messageJson(AddResponseSchema, res));
      }),
  );

  server.registerTool(
    "search_facts",
    {
      title: "Search facts",
      description:
        "Search the user's extracted facts (see add_facts) for a question; dates and names in the question count. Each hit carries the outdated facts it replaced in `history` (with validTo set).",
      inputSchema: {
        ...scope,
        query: z.string().describe("The question, e.g. 'Where does the user live?'."),
        k: z.number().int().optional().describe("How many hits (default 10, at most 100)."),
        as_of: asOf,
        as_of_event: asOfEvent,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.search(
          { scope: scopeFor(binding, args), query: args.query, k: args.k ?? 0, asOf: timeArg("as_of", args.as_of), asOfEvent: timeArg("as_of_event", args.as_of_event) },
          call,
        );
        return jsonResult(messageJson(SearchResponseSchema, res));
      }),
  );

  server.registerTool(
    "prompt_block",
    {
      title: "Prompt block",
      description:
        "A ready-to-paste, dated memory block for a system prompt about a topic: the user's profile, then relevant facts (outdated ones marked) and messages, capped at a token budget.",
      inputSchema: {
        ...scope,
        query: z.string().describe("The topic or the user's latest message."),
        budget_tokens: z.number().int().optional().describe("Token cap for the block (default 500, at most 32000)."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.promptBlock({ scope: scopeFor(binding, args), query: args.query, budgetTokens: args.budget_tokens ?? 0 }, call);
        return jsonResult(messageJson(PromptBlockResponseSchema, res));
      }),
  );

  server.registerTool(
    "forget",
    {
      title: "Forget",
      description:
        "Delete the user's memories (in one session if `session` is given). Pinned memories are kept unless pinned_exempt is false. With unused_for_days, delete only memories not used for that many days. Only when the user asks you to forget.",
      inputSchema: {
        ...scope,
        pinned_exempt: z.boolean().optional().describe("Keep pinned memories (default true)."),
        unused_for_days: z.number().int().optional().describe("Only memories unused for this many days (optional)."),
      },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.forget(
          { scope: scopeFor(binding, args), pinnedExempt: args.pinned_exempt, unusedForDays: args.unused_for_days ?? 0 },
          call,
        );
        return jsonResult(messageJson(ForgetResponseSchema, res));
      }),
  );

  server.registerTool(
    "history",
    {
      title: "History",
      description: "The raw conversation turns stored for the user, oldest first, paged with from/size.",
      inputSchema: {
        ...scope,
        from: z.number().int().optional().describe("Turns to skip (default 0)."),
        size: z.number().int().optional().describe("Turns to return (default 50)."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const res = await memory.history({ scope: scopeFor(binding, args), from: args.from ?? 0, size: args.size ?? 0 }, call);
        return jsonResult(messageJson(HistoryResponseSchema, res));
      }),
  );
}
