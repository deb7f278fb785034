import { type Command, Option } from "commander";
import { loadClientConfig, loadConfig, loadMcpConfig } from "../config.js";

interface McpFlags {
  url?: string;
  apiKey?: string;
  data?: string;
  embedder?: string;
  llm?: string;
  user?: string;
  agent?: string;
  namespace?: string;
}

/** `agentmem mcp`: an MCP server on stdio over the embedded store, or over a running server with `--url`. */
export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("serve agentmem to an MCP client (Claude Desktop, IDE agents) over stdio")
    .option("--url <url>", "talk to a running server instead of opening the store")
    .option("--api-key <key>", "API key for the server or the store's keys (env AGENTMEM_API_KEY)")
    .option("--data <dir>", "LanceDB directory or URI when embedded (env AGENTMEM_DATA, default ./data)")
    .addOption(new Option("--embedder <mode>", "embedder when embedded (env AGENTMEM_EMBEDDER, default use)").choices(["hash", "use", "openai"]))
    .addOption(new Option("--llm <mode>", "chat model when embedded (env AGENTMEM_LLM, default none)").choices(["none", "openai"]))
    .option("--user <id>", "the end-user this session acts for (env AGENTMEM_MCP_USER, default `default`)")
    .option("--agent <id>", "scope agent (env AGENTMEM_MCP_AGENT)")
    .option("--namespace <id>", "scope namespace (env AGENTMEM_MCP_NAMESPACE)")
    .action(async (flags: McpFlags) => {
      // Anything a library prints must not land in the protocol stream.
      console.log = console.error;
      console.info = console.error;
      console.debug = console.error;
      const { serveMcpStdio } = await import("../mcp/stdio.js");
      const scope = loadMcpConfig(flags);
      const target =
        flags.url !== undefined
          ? { kind: "remote" as const, client: loadClientConfig({ url: flags.url, key: flags.apiKey }) }
          : { kind: "embedded" as const, config: loadConfig({ data: flags.data, embedder: flags.embedder, llm: flags.llm }), apiKey: flags.apiKey ?? loadClientConfig({}).apiKey };
      const server = await serveMcpStdio(target, scope);
      process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
      process.on("SIGINT", () => void server.close().then(() => process.exit(0)));
      await server.closed;
      process.exit(0);
    });
}
