/** What a tenant has consumed from model providers, as persisted in its `usage` table. */
export interface UsageCounters {
  /** Tokens billed by an external embedding provider. */
  embeddingTokens: number;
  /** Prompt tokens billed by the chat provider. */
  llmPromptTokens: number;
  /** Completion tokens billed by the chat provider. */
  llmCompletionTokens: number;
  /** Characters of content sent to external embedding or chat providers. */
  externalChars: number;
  /** Requests sent to the embedding provider. */
  embeddingRequests: number;
  /** Requests sent to the chat provider. */
  chatRequests: number;
}

/** One `usage` row: running totals for the tenant (id `totals`). Times are epoch ms. */
export interface UsageRecord extends UsageCounters {
  id: string;
  updatedAt: number;
}

/** The id of the tenant's running-totals row. */
export const USAGE_TOTALS_ID = "totals";

/** All counters at zero. */
export function zeroUsage(): UsageCounters {
  return { embeddingTokens: 0, llmPromptTokens: 0, llmCompletionTokens: 0, externalChars: 0, embeddingRequests: 0, chatRequests: 0 };
}

/** Adds `b` to `a` counter by counter (a new object). */
export function addUsage(a: UsageCounters, b: UsageCounters): UsageCounters {
  return {
    embeddingTokens: a.embeddingTokens + b.embeddingTokens,
    llmPromptTokens: a.llmPromptTokens + b.llmPromptTokens,
    llmCompletionTokens: a.llmCompletionTokens + b.llmCompletionTokens,
    externalChars: a.externalChars + b.externalChars,
    embeddingRequests: a.embeddingRequests + b.embeddingRequests,
    chatRequests: a.chatRequests + b.chatRequests,
  };
}
