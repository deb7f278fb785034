import { createEmbedder } from "../adapters/providers.js";
import { type ReembedOptions, type ReembedReport, reembedStore } from "../cli/reembed.js";
import type { Config } from "../config.js";
import type { Embedder } from "../ports/embedder.js";
import { openDataDirectory } from "./data-directory.js";

/** `agentmem reembed` assembled: the configured embedder over the configured data directory. */
export async function reembedConfigured(
  config: Config,
  options: Pick<ReembedOptions, "batchSize" | "onProgress">,
): Promise<{ report: ReembedReport; embedder: Embedder }> {
  const embedder = await createEmbedder(config);
  const report = await reembedStore({ ...options, uri: config.data, open: (uri) => openDataDirectory(uri, config.storage.tableShards), embedder });
  return { report, embedder };
}
