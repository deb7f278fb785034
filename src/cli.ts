import { Command, Option } from "commander";
import { registerAddCommand } from "./cli/add-command.js";
import { registerConversationCommands } from "./cli/conversation-commands.js";
import { describeCliError } from "./cli/errors.js";
import { registerImportCommand } from "./cli/import-command.js";
import { registerMcpCommand } from "./cli/mcp-command.js";
import { registerMemoryCommands } from "./cli/memory-commands.js";
import { registerPrivacyCommands } from "./cli/privacy-commands.js";
import { registerReembedCommand } from "./cli/reembed-command.js";
import { loadConfig } from "./config.js";

/** Builds the `agentmem` command line. */
export function createProgram(): Command {
  const program = new Command("agentmem")
    .description("Memory service for AI agents")
    // Usage errors read like every other error: one line, `agentmem: …`, exit 1.
    .configureOutput({ outputError: (text, write) => write(`agentmem: ${text.replace(/^error: /, "")}`) });
  program
    .command("serve")
    .description("serve the agentmem API on one port (Connect, gRPC, gRPC-Web)")
    .option("--data <dir>", "LanceDB directory or URI (env AGENTMEM_DATA, default ./data)")
    .option("--host <host>", "listen address (env AGENTMEM_HOST, default 127.0.0.1)")
    .option("--port <port>", "listen port (env AGENTMEM_PORT, default 8080)")
    .addOption(new Option("--embedder <mode>", "embedder (env AGENTMEM_EMBEDDER, default use)").choices(["hash", "use", "openai"]))
    .addOption(new Option("--llm <mode>", "chat model (env AGENTMEM_LLM, default none)").choices(["none", "openai"]))
    .action(async (flags: { data?: string; host?: string; port?: string; embedder?: string; llm?: string }) => {
      // Imported on use so that client commands start without loading the storage engine.
      const { startServer } = await import("./compose/start-server.js");
      const { tuneHeap } = await import("./server/heap-tuning.js");
      tuneHeap();
      const server = await startServer(loadConfig(flags));
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        server.app.deps.logger.info({ signal }, "shutting down");
        // A stuck engine commit would hold the drain forever; what was acknowledged is already durable.
        if (server.app.watchdog.stalled) {
          server.app.deps.logger.error("an engine commit is stuck: exiting without waiting for queued writes");
          process.exit(1);
        }
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on("SIGTERM", () => stop("SIGTERM"));
      process.on("SIGINT", () => stop("SIGINT"));
    });
  registerMemoryCommands(program);
  registerAddCommand(program);
  registerImportCommand(program);
  registerPrivacyCommands(program);
  registerConversationCommands(program);
  registerReembedCommand(program);
  registerMcpCommand(program);
  return program;
}

/** Runs the CLI; errors print one line and exit non-zero. */
export async function main(argv: string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (error) {
    process.stderr.write(`agentmem: ${describeCliError(error)}\n`);
    process.exit(1);
  }
}
