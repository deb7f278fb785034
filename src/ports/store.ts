import type { ConversationRecord, MessageRecord } from "../core/conversations/conversation-record.js";
import type { AnchorRecord } from "../core/drift/anchor-record.js";
import type { ProfileRecord } from "../core/profile-record.js";
import type { EpisodeRecord, MemoryRecord } from "../core/records.js";
import type { RelationRecord, ThirdPartyRecord } from "../core/relational/records.js";
import type { UsageRecord } from "../core/usage/usage-record.js";
import type { AuditRecord } from "../core/privacy/audit-record.js";
import type { RetentionRecord } from "../core/privacy/retention-plan.js";
import type { AppendableCollection, Collection, PatchableCollection, VersionedCollection } from "./collection.js";
import type { MemoryUseRecord } from "../core/memory-use.js";
import type { PersonalTable } from "./personal-table.js";

/** Storage for all tenants. Each tenant's rows live in their own physical tables. */
export interface Store {
  /** The embedding dimension tables are created with. */
  readonly dimension: number;
  memories(tenant: string): Promise<PatchableCollection<MemoryRecord>>;
  /** The raw transcript; a turn whose id is new by construction (a Process turn) is appended unchecked. */
  episodes(tenant: string): Promise<AppendableCollection<EpisodeRecord>>;
  /** Recorded uses per memory (last used, how often), kept out of the memory rows. */
  memoryUse(tenant: string): Promise<VersionedCollection<MemoryUseRecord>>;
  /** Drift anchors, one row per scope. */
  anchors(tenant: string): Promise<PatchableCollection<AnchorRecord>>;
  /** Provider usage counters (running totals). */
  usage(tenant: string): Promise<PatchableCollection<UsageRecord>>;
  /** Bytes on disk of all the tenant's tables. */
  bytesOnDisk(tenant: string): Promise<number>;
  /** Relational state: each change appends the end-user's next revision (see `RelationRecord.id`). */
  relations(tenant: string): Promise<PatchableCollection<RelationRecord> & AppendableCollection<RelationRecord>>;
  /** People end-users mention, one row per (user, person). */
  thirdParties(tenant: string): Promise<PatchableCollection<ThirdPartyRecord>>;
  /** The ~120-word end-user profiles, one row per (namespace, agent, user). */
  profiles(tenant: string): Promise<PatchableCollection<ProfileRecord>>;
  /** The append-only audit trail (append only; never updated, never erased with an end-user). */
  audit(tenant: string): Promise<AppendableCollection<AuditRecord>>;
  /** The tenant's retention plan (one row, id `plan`). */
  retention(tenant: string): Promise<Collection<RetentionRecord>>;
  /** Named conversations, one row per conversation (id = the conversation id = its session). */
  conversations(tenant: string): Promise<PatchableCollection<ConversationRecord>>;
  /** Each conversation message's position and trace (id = its transcript turn's id). */
  conversationMessages(tenant: string): Promise<Collection<MessageRecord>>;
  /** Every table of the tenant holding rows about end-users (a `user` column), for erasure and export. */
  personalTables(tenant: string): Promise<PersonalTable[]>;
  /** Tenants that have tables. */
  tenants(): Promise<string[]>;
  /** Waits for queued writes, then releases resources. */
  close(): Promise<void>;
}
