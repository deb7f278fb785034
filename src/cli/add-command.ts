import { toJson } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { AddResponseSchema } from "../../sdk/index.js";
import { type ClientFlags, clientOptions, connect, out, parseDate, scopeOf } from "./context.js";
import { factLine } from "./format.js";

/** Registers `add USER MESSAGE`: the fact write path (extract, dedup, supersede). */
export function registerAddCommand(program: Command): void {
  clientOptions(
    program
      .command("add")
      .description("the fact write path: extract standalone facts from a message, drop duplicates, close superseded facts (Add)")
      .argument("<user>", "end-user id")
      .argument("<message>", "what the end-user said")
      .option("--name <name>", "speaker name")
      .option("--role <role>", "user, assistant or system", "user")
      .option("--at <date>", "when it was said (default now); relative dates resolve against it"),
  ).action(async (user: string, message: string, flags: ClientFlags & { name?: string; role: string; at?: string }) => {
    const { client } = connect(flags);
    const res = await client.add({
      scope: scopeOf(flags, user),
      messages: [{ role: flags.role, name: flags.name ?? "", content: message }],
      observedAt: flags.at ? parseDate(flags.at, "--at") : undefined,
    });
    if (flags.json) return out(JSON.stringify(toJson(AddResponseSchema, res), null, 2));
    for (const m of res.added) out(`added      ${factLine(m)}`);
    for (const m of res.superseded) out(`superseded ${factLine(m)}`);
    if (res.skippedDuplicates > 0) out(`skipped ${res.skippedDuplicates} duplicate${res.skippedDuplicates === 1 ? "" : "s"}`);
    if (res.extractionError) process.stderr.write(`extraction failed, raw turn kept: ${res.extractionError}\n`);
    if (res.added.length === 0 && res.superseded.length === 0 && res.skippedDuplicates === 0) out("no facts extracted (the raw turn is stored)");
  });
}
