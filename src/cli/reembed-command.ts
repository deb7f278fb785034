import { SingleBar } from "cli-progress";
import { type Command, Option } from "commander";
import { loadConfig } from "../config.js";
import { out, parseCount } from "./context.js";

interface ReembedFlags {
  data?: string;
  embedder?: string;
  batch: string;
}

/** Registers `reembed`: rebuild every vector of a data directory with a new embedder (server stopped). */
export function registerReembedCommand(program: Command): void {
  program
    .command("reembed")
    .description("rebuild every memory and transcript vector from its text with a new embedder; works on the data directory, so stop the server first")
    .option("--data <dir>", "LanceDB directory or URI (env AGENTMEM_DATA, default ./data)")
    .addOption(new Option("--embedder <mode>", "the new embedder (env AGENTMEM_EMBEDDER, default use)").choices(["hash", "use", "openai"]))
    .option("--batch <n>", "texts per embedding call", "128")
    .action(async (flags: ReembedFlags) => {
      const config = loadConfig({ data: flags.data, embedder: flags.embedder });
      // Loaded on use: the storage engine and the embedders are heavy for the other commands.
      const { reembedConfigured } = await import("../compose/offline-reembed.js");
      const bar = new SingleBar({
        stream: process.stderr,
        format: "{bar} {percentage}% | {value}/{total} rows",
        barCompleteChar: "█",
        barIncompleteChar: "░",
        noTTYOutput: true,
        notTTYSchedule: 500,
      });
      const started = performance.now();
      let begun = false;
      const { report, embedder } = await reembedConfigured(config, {
        batchSize: parseCount(flags.batch, "--batch"),
        onProgress(done, total) {
          if (!begun) bar.start(total, done);
          else bar.update(done);
          begun = true;
        },
      }).finally(() => bar.stop());
      for (const t of report.tables) out(`${t.table}: ${t.rows} rows, ${t.fromDimension}-d → ${t.toDimension}-d`);
      out(`re-embedded ${report.rows} rows in ${report.tables.length} tables with ${embedder.mode} (${embedder.model}, ${embedder.dimension}-d) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    });
}
