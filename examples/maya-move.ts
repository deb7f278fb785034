import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AgentMem } from "agentmem/sdk";

const mem = new AgentMem({ baseUrl: process.env.AGENTMEM_URL ?? "http://127.0.0.1:8080", apiKey: process.env.AGENTMEM_API_KEY });
const scope = { user: "maya" };
const at = (day: string) => timestampFromDate(new Date(day));
const say = (content: string) => [{ role: "user", name: "Maya", content }];

// The fact write path: extract standalone facts, drop duplicates, close what a new fact replaces.
await mem.add({ scope, messages: say("I live in London and work as a nurse at St Thomas'."), observedAt: at("2025-01-14") });
const move = await mem.add({ scope, messages: say("Big news: I just moved from London to Paris for a job at a payments startup."), observedAt: at("2026-03-02") });
console.log("closed:", move.superseded.map((m) => m.text));

// The read path: open facts only, each with the chain it replaced; as_of travels back in time.
const now = await mem.search({ scope, query: "where does Maya live", k: 3 });
console.log("now:", now.hits[0]?.memory, "| replaced:", now.hits[0]?.history.map((m) => m.text));
const then = await mem.search({ scope, query: "where does Maya live", k: 3, asOf: at("2025-06-01") });
console.log("as of 2025-06-01:", then.hits[0]?.memory);

// A dated block for the prompt, capped in tokens.
const { block, tokensUsed } = await mem.promptBlock({ scope, query: "any good bakeries near me?", budgetTokens: 500 });
console.log(`${block}\n(${tokensUsed} tokens)`);
