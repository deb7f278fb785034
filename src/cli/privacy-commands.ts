import { writeFile } from "node:fs/promises";
import { toJson } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { ExportResponseSchema } from "../../sdk/index.js";
import { type ClientFlags, clientOptions, connect, out } from "./context.js";

/** Registers `export USER` and `erase USER` (admin key). */
export function registerPrivacyCommands(program: Command): void {
  clientOptions(
    program
      .command("export")
      .description("everything stored about an end-user, as JSON (Export; admin key)")
      .argument("<user>", "end-user id")
      .option("--out <file>", "write to a file instead of stdout"),
    { json: false },
  ).action(async (user: string, flags: ClientFlags & { out?: string }) => {
    const { client } = connect(flags);
    const res = await client.privacy.export({ externalId: user, tenant: flags.tenant ?? "" });
    const text = JSON.stringify(toJson(ExportResponseSchema, res), null, 2);
    if (!flags.out) return out(text);
    await writeFile(flags.out, `${text}\n`);
    process.stderr.write(`exported ${res.memories.length} memories and ${res.episodes.length} turns of ${user} to ${flags.out}\n`);
  });

  clientOptions(
    program
      .command("erase")
      .description("erase everything stored about an end-user, down to the bytes on disk (Erase; admin key)")
      .argument("<user>", "end-user id")
      .option("--yes", "confirm: this cannot be undone"),
    { json: false },
  ).action(async (user: string, flags: ClientFlags & { yes?: boolean }) => {
    if (!flags.yes) throw new Error(`erase deletes everything stored about ${user} and cannot be undone: add --yes to confirm`);
    const { client } = connect(flags);
    const res = await client.privacy.erase({ externalId: user, tenant: flags.tenant ?? "" });
    out(
      `erased ${user}: ${res.memories} memories, ${res.episodes} turns, ${res.relations} relation rows, ` +
        `${res.thirdParties} third parties, ${res.anchors} anchors, ${res.profiles} profiles (audit ${res.auditId})`,
    );
  });
}
