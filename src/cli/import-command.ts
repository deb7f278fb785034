import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { type ClientFlags, clientOptions, connect, out, parseCount } from "./context.js";
import { parseImport } from "./import-formats.js";

interface ImportFlags extends ClientFlags {
  user?: string;
  batch: string;
}

/** Registers `import FILE`: JSONL of RememberRequests or a LoCoMo conversation, in batches, with a progress bar. */
export function registerImportCommand(program: Command): void {
  clientOptions(
    program
      .command("import")
      .description("import turns from a file: JSONL (one RememberRequest per line, proto JSON) or a LoCoMo conversation (detected)")
      .argument("<file>", "the file to read")
      .option("--user <id>", "end-user for every turn (required for LoCoMo; default for JSONL lines without scope.user)")
      .option("--batch <n>", "turns per RememberBatch call (max 1000)", "200"),
    { json: false },
  ).action(async (file: string, flags: ImportFlags) => {
    const batch = parseCount(flags.batch, "--batch");
    if (batch > 1000) throw new Error("--batch: at most 1000 turns per call");
    const source = parseImport(await readFile(file, "utf8"), flags.user);
    if (flags.tenant || flags.namespace || flags.agent || flags.session) {
      for (const item of source.items) {
        item.scope = {
          tenant: flags.tenant ?? item.scope?.tenant,
          namespace: flags.namespace ?? item.scope?.namespace,
          agent: flags.agent ?? item.scope?.agent,
          session: flags.session ?? item.scope?.session,
          user: item.scope?.user,
        };
      }
    }
    const { client } = connect(flags);
    const total = source.items.length;
    const what = source.format === "locomo" ? `LoCoMo conversation, ${source.sessions} sessions` : "JSONL";
    process.stderr.write(`importing ${total} turns from ${basename(file)} (${what})\n`);
    const bar = new SingleBar({
      stream: process.stderr,
      format: "{bar} {percentage}% | {value}/{total} turns | {rate}/s",
      barCompleteChar: "█",
      barIncompleteChar: "░",
      noTTYOutput: true,
      notTTYSchedule: 500,
      hideCursor: true,
    });
    const started = performance.now();
    bar.start(total, 0, { rate: 0 });
    const ids = new Set<string>();
    try {
      for (let at = 0; at < total; at += batch) {
        const res = await client.memory.rememberBatch({ items: source.items.slice(at, at + batch) });
        res.memoryIds.forEach((id) => ids.add(id));
        const done = Math.min(total, at + batch);
        bar.update(done, { rate: Math.round(done / ((performance.now() - started) / 1000)) });
      }
    } finally {
      bar.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const users = new Set(source.items.map((i) => i.scope?.user ?? ""));
    out(
      `imported ${total} turns as ${ids.size} memories for ${users.size === 1 ? `user ${[...users][0]}` : `${users.size} users`} ` +
        `in ${seconds.toFixed(1)} s (${Math.round(total / Math.max(seconds, 0.001))} turns/s)`,
    );
  });
}
