import { AgentMemError, logDetailOf } from "../../core/errors.js";
import type { Detection } from "../../core/relational/detector.js";
import { applyInteraction } from "../../core/relational/dynamics.js";
import { extractMentions } from "../../core/relational/mentions.js";
import { buildSystemPrompt } from "../../core/relational/prompt.js";
import type { RelationRecord } from "../../core/relational/records.js";
import { relationBias, type Tone, toneFor } from "../../core/relational/state.js";
import type { ServiceDeps } from "../deps.js";
import { readsOf, scopeUser } from "../user-reads.js";
import { rememberAll } from "../memory/remember.js";
import type { KeyedLock } from "./keyed-lock.js";
import { judgeMessage } from "./judgement.js";
import { changeRelation, effectiveAt } from "./relation-rows.js";
import { memoriesOfUser, type RelevantMemory, relevantMemories } from "./relevant-memories.js";
import type { ProcessInput } from "./requests.js";
import { recordMentions } from "./third-parties.js";
import { StepTimer } from "../step-timer.js";

/** Everything one Process turn produced. */
export interface ProcessResult {
  reply: string;
  relevant: RelevantMemory[];
  totalStored: number;
  relation: RelationRecord;
  detection: Detection;
  tone: Tone;
  relationBias: number;
  systemPrompt: string;
  memoryId: string;
}

/** Importance of the stored interaction (1–10, drives recall salience): crises and feelings weigh more. */
function importanceOf(d: Detection): number {
  if (d.crisis) return 9;
  return d.emotions.length > 0 ? 6 : 5;
}

/** The stored interaction text; without a generated reply only the user's words are known. */
export function interactionText(message: string, reply: string): string {
  return reply === "" ? `User: ${message}` : `User: ${message}\nAssistant: ${reply}`;
}

async function generateReply(deps: ServiceDeps, tenant: string, systemPrompt: string, message: string): Promise<string> {
  if (!deps.chat.available) return "";
  try {
    const answer = await deps.chat.complete({
      tenant,
      messages: [
        { role: "system", content: systemPrompt },
        { role: "user", content: message },
      ],
    });
    return answer.content.trim();
  } catch (error) {
    // The relation is already updated; a failed model degrades to the offline answer (empty reply
    // plus the system prompt) instead of failing a turn the caller could not safely retry.
    if (!(error instanceof AgentMemError)) throw error;
    deps.logger.warn({ tenant, reason: error.reason, err: logDetailOf(error) }, "process: chat model failed; returning the system prompt only");
    return "";
  }
}

/**
 * One chat turn (Humane's process()): embed → detect (rules, meaning with a semantic embedder, and the chat model when one is configured) → retrieve the top-k memories of this end-user →
 * update the relation (atomically, at `at`) → build the context and system prompt → reply with
 * the chat model if one is configured → store the interaction as one memory and count mentions.
 */
export async function processTurn(deps: ServiceDeps, lock: KeyedLock, tenant: string, input: ProcessInput): Promise<ProcessResult> {
  const now = deps.clock.now().getTime();
  const user = input.key.user;
  const timer = new StepTimer();
  // One vector serves both the judgement by meaning (crisis, emotions) and retrieval.
  const [vector] = await deps.embedder.embed([input.message]);
  const detection = await judgeMessage(deps, tenant, input.message, vector);
  timer.lap("judge");
  // Retrieval and the state update do not depend on each other: run them side by side. The
  // update refuses a replay into the past (AT_BEFORE_LAST_SEEN) before writing anything.
  // The relation's write goes on while the turn is built and stored: both commits land side by
  // side (different tables), so a turn waits for one commit round instead of two.
  const [relevant, { relation, written }] = await Promise.all([
    relevantMemories(deps, tenant, input.key, vector, { k: input.k, minSimilarity: input.minSimilarity, at: input.at }),
    changeRelation(deps, lock, tenant, user, (row) => applyInteraction(row, detection, effectiveAt(row, input.at, now))),
  ]);
  timer.lap("retrieve");
  const tone = toneFor(relation.grudge);
  const bias = relationBias(relation);
  const systemPrompt = buildSystemPrompt({
    state: relation,
    relationBias: bias,
    tone,
    emotions: detection.emotions,
    intent: detection.intent,
    crisis: detection.crisis,
    shouting: detection.shouting,
    interactionCount: relation.interactionCount,
    memories: relevant.map((r) => ({ text: r.memory.text, at: r.memory.validFrom, similarity: r.similarity })),
  });
  const reply = await generateReply(deps, tenant, systemPrompt, input.message);
  timer.lap("reply");
  const storedAt = relation.lastSeen ?? now;
  const [[memoryId]] = await Promise.all([
    rememberAll(deps, tenant, [
      {
        key: input.key,
        content: interactionText(input.message, reply),
        role: "user",
        name: "",
        factType: "event",
        pinned: false,
        tags: { kind: "interaction" },
        parentId: "",
        traceNumber: relation.interactionCount,
        observedAt: storedAt,
        channel: input.channel,
        importance: importanceOf(detection),
        emotions: detection.emotions,
        intent: detection.intent,
      },
    ], { newTurns: true }),
    recordMentions(deps, tenant, user, extractMentions(input.message), storedAt),
    written,
  ]);
  timer.lap("store");
  deps.access.touch(tenant, relevant.map((r) => r.memory), now);
  const totalStored = await readsOf(await deps.store.memories(tenant), scopeUser(input.key)).count(memoriesOfUser(input.key));
  timer.lap("count");
  deps.logger.debug({ tenant, steps: timer.total() }, "process steps");
  return { reply, relevant, totalStored, relation, detection, tone, relationBias: bias, systemPrompt, memoryId };
}
