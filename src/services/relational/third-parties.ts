import { create } from "@bufbuild/protobuf";
import { type ThirdParty, ThirdPartySchema } from "../../gen/agentmem/v1/relational_service_pb.js";
import type { Mention } from "../../core/relational/mentions.js";
import type { ThirdPartyRecord } from "../../core/relational/records.js";
import { addMention, newThirdParty, thirdPartyId } from "../../core/relational/third-party.js";
import { where } from "../../core/condition.js";
import { ts } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { decodePageToken, encodePageToken } from "../page-token.js";
import type { ThirdPartyInput } from "./requests.js";

/** A stored third party → wire ThirdParty. */
export function thirdPartyToProto(t: ThirdPartyRecord): ThirdParty {
  return create(ThirdPartySchema, {
    person: t.person,
    relation: t.relation,
    sentiment: t.sentiment,
    mentions: BigInt(Math.round(t.mentions)),
    lastMentioned: ts(t.lastMentioned),
  });
}

/** Creates the rows of people not seen before (existing rows are left alone). */
async function ensureRows(deps: ServiceDeps, tenant: string, rows: ThirdPartyRecord[]): Promise<void> {
  const parties = await deps.store.thirdParties(tenant);
  const existing = new Set((await parties.get(rows.map((r) => r.id))).map((r) => r.id));
  await parties.insertNew(rows.filter((r) => !existing.has(r.id)));
}

/** Counts mentions found in a message: one commit for all of them, serialised with other writes. */
export async function recordMentions(deps: ServiceDeps, tenant: string, user: string, mentions: readonly Mention[], at: number): Promise<void> {
  if (mentions.length === 0) return;
  const byId = new Map(mentions.map((m) => [thirdPartyId(user, m.person), m]));
  await ensureRows(deps, tenant, mentions.map((m) => newThirdParty(user, m.person, m.relation, at)));
  const parties = await deps.store.thirdParties(tenant);
  await parties.patch([...byId.keys()], (row) => {
    const mention = byId.get(row.id);
    return mention ? addMention(row, mention, at) : undefined;
  });
}

/**
 * UpsertThirdParty: sets what the end-user thinks of someone. Sentiment is replaced; relation,
 * mentions and last_mentioned are replaced when given, else kept.
 */
export async function upsertThirdParty(deps: ServiceDeps, tenant: string, input: ThirdPartyInput): Promise<ThirdPartyRecord> {
  const now = deps.clock.now().getTime();
  const fresh = newThirdParty(input.user, input.person, input.relation, now);
  await ensureRows(deps, tenant, [fresh]);
  const parties = await deps.store.thirdParties(tenant);
  const [row] = await parties.patch([fresh.id], (r) => ({
    ...r,
    relation: input.relation || r.relation,
    sentiment: input.sentiment,
    mentions: input.mentions > 0 ? input.mentions : r.mentions,
    lastMentioned: input.lastMentioned ?? r.lastMentioned,
  }));
  return row ?? { ...fresh, sentiment: input.sentiment, mentions: input.mentions, lastMentioned: input.lastMentioned ?? null };
}

/** ListThirdParties: most mentioned first (then most recent, then by name), opaque page tokens. */
export async function listThirdParties(deps: ServiceDeps, tenant: string, user: string, pageSize: number, pageToken: string) {
  const binding = ["third_parties", tenant, user];
  const offset = decodePageToken(pageToken, binding);
  const rows = await (await deps.store.thirdParties(tenant)).find(where.eq("user", user));
  rows.sort(
    (a, b) => b.mentions - a.mentions || (b.lastMentioned ?? 0) - (a.lastMentioned ?? 0) || a.person.localeCompare(b.person),
  );
  const page = rows.slice(offset, offset + pageSize);
  return {
    thirdParties: page.map(thirdPartyToProto),
    nextPageToken: offset + pageSize < rows.length ? encodePageToken(offset + pageSize, binding) : "",
  };
}
