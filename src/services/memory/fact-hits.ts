import { create } from "@bufbuild/protobuf";
import { type Hit, HitSchema } from "../../gen/agentmem/v1/common_pb.js";
import type { ScoredCandidate } from "../../core/fact-search.js";
import { matchStrength } from "../../core/match-strength.js";
import type { EpisodeRecord } from "../../core/records.js";
import { factTypeToProto, memoryToProto, strengthToProto, ts } from "../convert.js";
import type { FactHit } from "./search.js";

/**
 * A Search hit on the wire. Components: `vector` = meaning (cosine, 0..1), `lexical` = words
 * (BM25 / best BM25), `names`, and `base` = `fused` = score; the read path has no decay (1) and no
 * salience (0).
 */
export function factHitToProto(tenant: string, h: FactHit): Hit {
  const m = h.item;
  return create(HitSchema, {
    id: m.id,
    memory: m.text,
    factType: factTypeToProto(m.factType),
    score: h.score,
    tags: m.tags,
    components: { lexical: h.words, vector: h.meaning, names: h.names, base: h.score, decay: 1, salience: 0, fused: h.score, similarity: h.similarity },
    strength: strengthToProto(matchStrength(h.similarity, h.bm25 > 0)),
    createdAt: ts(m.createdAt),
    validFrom: ts(m.validFrom),
    validTo: ts(m.validTo),
    eventDate: ts(m.eventDate),
    history: h.history.map((r) => memoryToProto(tenant, r)),
    kind: "memory",
  });
}

/** A raw transcript turn as a PromptBlock row (`kind` "message"). */
export function turnHitToProto(h: ScoredCandidate<EpisodeRecord>): Hit {
  const e = h.item;
  return create(HitSchema, {
    id: e.id,
    memory: e.content,
    score: h.score,
    components: { lexical: h.words, vector: h.meaning, names: h.names, base: h.score, decay: 1, salience: 0, fused: h.score, similarity: h.similarity },
    strength: strengthToProto(matchStrength(h.similarity, h.bm25 > 0)),
    createdAt: ts(e.createdAt),
    validFrom: ts(e.observedAt),
    kind: "message",
  });
}
