import { toJson } from "@bufbuild/protobuf";
import { type Command, Option } from "commander";
import {
  HistoryResponseSchema,
  ListMemoriesResponseSchema,
  type Memory,
  PromptBlockResponseSchema,
  RecallResponseSchema,
  SearchResponseSchema,
} from "../../sdk/index.js";
import { GetStateResponseSchema } from "../gen/agentmem/v1/relational_service_pb.js";
import { type ClientFlags, clientOptions, connect, out, parseCount, parseDate, parseTags, scopeOf } from "./context.js";
import { factLine, hitLines, isoDay, isoMinute } from "./format.js";

const FACT_TYPES = ["semantic", "preference", "summary", "entity", "anchor", "event"];
const FACT_TYPE_NUMBERS: Record<string, number> = Object.fromEntries(FACT_TYPES.map((t, i) => [t, i + 1]));

interface RememberFlags extends ClientFlags {
  role?: string;
  name?: string;
  type?: string;
  pinned?: boolean;
  tag?: string[];
  at?: string;
  channel?: string;
}
interface QueryFlags extends ClientFlags {
  k: string;
  asOf?: string;
  asOfEvent?: string;
}

/** Registers remember, recall, facts, search, block, history and state. */
export function registerMemoryCommands(program: Command): void {
  clientOptions(
    program
      .command("remember")
      .description("store one turn for an end-user (Remember)")
      .argument("<user>", "end-user id")
      .argument("<text...>", "what was said")
      .option("--role <role>", "user, assistant, system or tool", "user")
      .option("--name <name>", "speaker name")
      .addOption(new Option("--type <type>", "fact type").choices(FACT_TYPES).default("semantic"))
      .option("--pinned", "survives forget, rollup and retention caps")
      .option("--tag <key=value...>", "tags")
      .option("--at <date>", "when it was said (default now)")
      .option("--channel <channel>", "where it was said, e.g. web, sms"),
    { json: false },
  ).action(async (user: string, text: string[], flags: RememberFlags) => {
    const { client } = connect(flags);
    const id = await client.remember({
      scope: scopeOf(flags, user),
      content: text.join(" "),
      role: flags.role,
      name: flags.name,
      factType: FACT_TYPE_NUMBERS[flags.type ?? "semantic"],
      pinned: flags.pinned ?? false,
      tags: parseTags(flags.tag),
      observedAt: flags.at ? parseDate(flags.at, "--at") : undefined,
      channel: flags.channel,
    });
    out(id);
  });

  clientOptions(
    program
      .command("recall")
      .description("hybrid recall over an end-user's memories (Recall)")
      .argument("<user>", "end-user id")
      .argument("<query...>", "what to look for")
      .option("-k <k>", "how many hits", "10")
      .option("--as-of <date>", "what the store believed then")
      .option("--as-of-event <date>", "what was true in the world then"),
  ).action(async (user: string, query: string[], flags: QueryFlags) => {
    const { client } = connect(flags);
    const res = await client.recall({
      scope: scopeOf(flags, user),
      query: query.join(" "),
      k: parseCount(flags.k, "-k"),
      asOf: flags.asOf ? parseDate(flags.asOf, "--as-of") : undefined,
      asOfEvent: flags.asOfEvent ? parseDate(flags.asOfEvent, "--as-of-event") : undefined,
      includeHistory: true,
    });
    if (flags.json) return out(JSON.stringify(toJson(RecallResponseSchema, res), null, 2));
    if (res.hits.length === 0) return out("no matches");
    res.hits.forEach((hit, i) => hitLines(hit, i + 1).forEach((l) => out(l)));
  });

  clientOptions(
    program
      .command("facts")
      .description("list an end-user's facts with their validity (ListMemories)")
      .argument("<user>", "end-user id")
      .option("--all", "include outdated (closed) facts")
      .option("--limit <n>", "at most this many", "1000"),
  ).action(async (user: string, flags: ClientFlags & { all?: boolean; limit: string }) => {
    const { client } = connect(flags);
    const limit = parseCount(flags.limit, "--limit");
    const rows: Memory[] = [];
    let pageToken = "";
    do {
      const page = await client.memory.listMemories({ scope: scopeOf(flags, user), pageSize: Math.min(1000, limit), pageToken });
      rows.push(...page.memories.filter((m) => flags.all || m.validTo === undefined));
      pageToken = page.nextPageToken;
    } while (pageToken && rows.length < limit);
    const shown = rows.slice(0, limit);
    if (flags.json) return out(JSON.stringify(toJson(ListMemoriesResponseSchema, { $typeName: "agentmem.v1.ListMemoriesResponse", memories: shown, nextPageToken: "" }), null, 2));
    if (shown.length === 0) return out(`no facts stored for ${user}`);
    shown.sort((a, b) => Number((a.validFrom?.seconds ?? 0n) - (b.validFrom?.seconds ?? 0n)));
    for (const m of shown) out(factLine(m));
  });

  clientOptions(
    program
      .command("search")
      .description("the fact read path: meaning + words + names, date-aware, with supersede chains (Search)")
      .argument("<user>", "end-user id")
      .argument("<question>", "the question")
      .option("-k <k>", "how many facts", "10")
      .option("--as-of <date>", "what the store believed then (YYYY-MM-DD)")
      .option("--as-of-event <date>", "what was true in the world then (YYYY-MM-DD)"),
  ).action(async (user: string, question: string, flags: QueryFlags) => {
    const { client } = connect(flags);
    const res = await client.search({
      scope: scopeOf(flags, user),
      query: question,
      k: parseCount(flags.k, "-k"),
      asOf: flags.asOf ? parseDate(flags.asOf, "--as-of") : undefined,
      asOfEvent: flags.asOfEvent ? parseDate(flags.asOfEvent, "--as-of-event") : undefined,
    });
    if (flags.json) return out(JSON.stringify(toJson(SearchResponseSchema, res), null, 2));
    if (res.hits.length === 0) return out("no matching facts");
    res.hits.forEach((hit, i) => hitLines(hit, i + 1).forEach((l) => out(l)));
  });

  clientOptions(
    program
      .command("block")
      .description("a dated memory block for a prompt, capped in tokens (PromptBlock)")
      .argument("<user>", "end-user id")
      .argument("<question>", "what the prompt is about")
      .option("--budget <tokens>", "token cap", "500"),
  ).action(async (user: string, question: string, flags: ClientFlags & { budget: string }) => {
    const { client } = connect(flags);
    const budget = parseCount(flags.budget, "--budget");
    const res = await client.promptBlock({ scope: scopeOf(flags, user), query: question, budgetTokens: budget });
    if (flags.json) return out(JSON.stringify(toJson(PromptBlockResponseSchema, res), null, 2));
    out(res.block);
    process.stderr.write(`(${res.tokensUsed} of ${budget} tokens, ${res.rows.length} rows)\n`);
  });

  clientOptions(
    program
      .command("history")
      .description("the raw transcript of an end-user, oldest first (History)")
      .argument("<user>", "end-user id")
      .option("--from <n>", "offset", "0")
      .option("--size <n>", "how many turns", "50"),
  ).action(async (user: string, flags: ClientFlags & { from: string; size: string }) => {
    const { client } = connect(flags);
    const from = Number(flags.from);
    if (!Number.isInteger(from) || from < 0) throw new Error(`--from: expected a whole number ≥ 0, got ${flags.from}`);
    const res = await client.memory.history({ scope: scopeOf(flags, user), from, size: parseCount(flags.size, "--size") });
    if (flags.json) return out(JSON.stringify(toJson(HistoryResponseSchema, res), null, 2));
    for (const t of res.turns) out(`${isoMinute(t.observedAt)}  ${(t.name || t.role).padEnd(10)} ${t.content}`);
    process.stderr.write(`(${res.turns.length} of ${res.total} turns)\n`);
  });

  clientOptions(
    program.command("state").description("how the agent stands with an end-user: trust, sentiment, grudge, familiarity (GetState)").argument("<user>", "end-user id"),
  ).action(async (user: string, flags: ClientFlags) => {
    const { client } = connect(flags);
    const res = await client.relational.getState({ scope: scopeOf(flags, user) });
    if (flags.json) return out(JSON.stringify(toJson(GetStateResponseSchema, res), null, 2));
    const u = res.user;
    for (const name of ["trust", "sentiment", "grudge", "familiarity"] as const) out(`${name.padEnd(12)} ${(u?.[name] ?? 0).toFixed(3)}`);
    out(`${"interactions".padEnd(12)} ${res.interactionCount}`);
    if (res.knownSince) out(`${"known since".padEnd(12)} ${isoDay(res.knownSince)}`);
    if (res.lastSeen) out(`${"last seen".padEnd(12)} ${isoMinute(res.lastSeen)}`);
  });
}
