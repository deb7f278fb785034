import type { ConnectRouter } from "@connectrpc/connect";
import { pino, type Logger } from "pino";
import { createChatModel, createEmbedder } from "./adapters/providers.js";
import { LanceStore } from "./adapters/lancedb/lance-store.js";
import { Maintainer } from "./adapters/lancedb/maintenance.js";
import { WriteWatchdog } from "./adapters/lancedb/write-watchdog.js";
import type { Config } from "./config.js";
import { ConversationService, file_agentmem_v1_conversation_service } from "./gen/agentmem/v1/conversation_service_pb.js";
import { file_agentmem_v1_drift_service, DriftService } from "./gen/agentmem/v1/drift_service_pb.js";
import { file_agentmem_v1_memory_service, MemoryService } from "./gen/agentmem/v1/memory_service_pb.js";
import { file_agentmem_v1_privacy_service, PrivacyService } from "./gen/agentmem/v1/privacy_service_pb.js";
import { file_agentmem_v1_relational_service, RelationalService } from "./gen/agentmem/v1/relational_service_pb.js";
import { file_grpc_health_v1_health, Health } from "./gen/grpc/health/v1/health_pb.js";
import type { ChatModel } from "./ports/chat-model.js";
import { type Clock, systemClock } from "./ports/clock.js";
import type { Embedder } from "./ports/embedder.js";
import { registerHealth } from "./server/health.js";
import { registerReflection } from "./server/reflection.js";
import type { ServiceDeps } from "./services/deps.js";
import { createConversationService } from "./services/conversations/conversation-service.js";
import { createDriftService } from "./services/drift/drift-service.js";
import { warmUpParsers } from "./core/extract/warm-up.js";
import { prototypesFor } from "./services/relational/judgement.js";
import { AccessTracker } from "./services/memory/access-tracker.js";
import { createMemoryService } from "./services/memory/memory-service.js";
import { AuditLog } from "./services/privacy/audit-log.js";
import { createPrivacyService } from "./services/privacy/privacy-service.js";
import { RetentionPolicy } from "./services/privacy/retention-policy.js";
import { EraseBarrier } from "./services/privacy/erase-barrier.js";
import { withEraseBarrier } from "./services/privacy/with-erase-barrier.js";
import { RollupScheduler } from "./services/memory/rollup-scheduler.js";
import { withUsageAttribution } from "./services/usage/attribute-usage.js";
import { UsageMeter } from "./services/usage/usage-meter.js";
import { createRelationalService } from "./services/relational/relational-service.js";
import type { WordVectors } from "./ports/word-vectors.js";

/** Parts a caller (tests, benches) may supply instead of the configured ones. */
export interface AppOverrides {
  embedder?: Embedder;
  chat?: ChatModel;
  clock?: Clock;
  logger?: Logger;
  /**
   * Word vectors for recall's word channel (default none: the channel did not win both LoCoMo
   * folds, docs/recall.md; `bench:locomo` passes them to measure it).
   */
  wordVectors?: WordVectors;
}

/** The assembled application: its dependencies, its routes and how to stop it. */
export interface App {
  readonly deps: ServiceDeps;
  readonly store: LanceStore;
  /** Background storage maintenance (compaction, index refresh, version cleanup, vector index). */
  readonly maintenance: Maintainer;
  /** Turns health NOT_SERVING while an engine commit is stuck. */
  readonly watchdog: WriteWatchdog;
  /** Registers every service, health and reflection on a Connect router. */
  routes(router: ConnectRouter): void;
  /** Health turns NOT_SERVING (first step of a graceful shutdown). */
  stopServing(): void;
  /** Flushes buffered work and waits for queued writes. */
  close(): Promise<void>;
}

/** Builds the app from config: the one place where ports meet their adapters. */
export async function createApp(config: Config, overrides: AppOverrides = {}): Promise<App> {
  const logger = overrides.logger ?? pino({ level: config.logLevel, base: { service: "agentmem" } });
  // The meter needs the store, which needs the embedder's dimension: the hooks resolve it late
  // (the embedder's start-up probe is nobody's usage).
  let meter: UsageMeter | undefined;
  const hooks = {
    onEmbedding: (tokens: number, chars: number) => meter?.recordEmbedding(tokens, chars),
    onChat: (tenant: string, prompt: number, completion: number, chars: number) => meter?.recordChat(tenant, prompt, completion, chars),
  };
  const embedder = overrides.embedder ?? (await createEmbedder(config, hooks));
  const chat = overrides.chat ?? createChatModel(config, hooks);
  const barrier = new EraseBarrier();
  const store = new LanceStore({
    fence: barrier,
    logger,
    uri: config.data,
    dimension: embedder.dimension,
    hotRowsBytes: config.storage.hotRowsMB * 2 ** 20,
    warmer: { admitAfterReads: config.storage.hotRowsAdmitReads },
    indexCacheBytes: config.storage.indexCacheMB * 2 ** 20,
    readConsistencySeconds: config.storage.readConsistencySeconds,
    sharedWriters: config.storage.sharedWriters,
    durability: config.storage.durability,
    tableShards: config.storage.tableShards,
  });
  // Compaction waits for 1 s without requests (at most 60 s), as buffered last-used marks wait for a quiet moment.
  const whenQuiet = () => store.quiet(1_000, 60_000);
  const isQuiet = () => store.isQuiet(1_000);
  // With replicas writing one directory, index folds wait for the absolute threshold: compacting
  // every pass beside another process's merges let two replicas' identical new ids both land
  // (test/scale-out.test.ts), a LanceDB cross-process race the write queue cannot close.
  const unindexedShare = config.storage.sharedWriters ? 0 : undefined;
  // A fold holds back this process's writes only, so with replicas every compaction is a full rewrite.
  const foldBytes = config.storage.sharedWriters ? 0 : undefined;
  const maintenance = new Maintainer(store, logger, {
    intervalMs: config.storage.maintenanceSeconds * 1000, vectorIndexRows: config.storage.vectorIndexRows, whenQuiet, isQuiet, unindexedShare, foldBytes,
  });
  maintenance.start();
  const watchdog = new WriteWatchdog(store, logger, { limitMs: config.storage.writeStallSeconds * 1000 });
  watchdog.start();
  const access = new AccessTracker(store, logger);
  access.start();
  const clock = overrides.clock ?? systemClock;
  warmUpParsers(clock.now().getTime());
  // The offline judgement's example sentences (~500) are embedded once; with the local sentence
  // model do it now, in the background, so the first Process does not wait seconds for it.
  if (config.embedder === "use") prototypesFor(embedder)?.catch((err: unknown) => logger.warn({ err }, "judgement prototypes not embedded; retried on first use"));
  const usage = (meter = new UsageMeter(store, clock, logger));
  usage.start();
  const retention = new RetentionPolicy(store, clock, logger);
  retention.start(config.retentionSweepMinutes * 60_000);
  const audit = new AuditLog(store, clock, logger);
  const deps: ServiceDeps = { config, store, embedder, chat, clock, logger, access, usage, retention, audit, barrier, wordVectors: overrides.wordVectors };
  const rollups = new RollupScheduler(deps, { ...config.rollup, intervalMs: config.rollup.intervalMinutes * 60_000 });
  rollups.start();
  let serving = true;
  // One implementation per service, whichever routers serve it (HTTP adapter, in-process MCP
  // transport): per-user locks and barriers inside a service must be shared by every door.
  const memoryService = createMemoryService(deps);
  const driftService = createDriftService(deps);
  const relationalService = createRelationalService(deps);
  const privacyService = createPrivacyService(deps);
  const conversationService = createConversationService(deps);
  return {
    deps,
    store,
    maintenance,
    watchdog,
    routes(baseRouter) {
      const router = withEraseBarrier(withUsageAttribution(baseRouter, usage), barrier);
      router.service(MemoryService, memoryService);
      router.service(DriftService, driftService);
      router.service(RelationalService, relationalService);
      router.service(PrivacyService, privacyService);
      router.service(ConversationService, conversationService);
      registerHealth(router, () => (serving && !watchdog.stalled && !store.disk.full ? "SERVING" : "NOT_SERVING"));
      const services = [MemoryService, DriftService, RelationalService, PrivacyService, ConversationService, Health];
      registerReflection(
        router,
        [file_agentmem_v1_memory_service, file_agentmem_v1_drift_service, file_agentmem_v1_relational_service, file_agentmem_v1_privacy_service, file_agentmem_v1_conversation_service, file_grpc_health_v1_health],
        services.map((s) => s.typeName),
      );
    },
    stopServing() {
      serving = false;
    },
    async close() {
      serving = false;
      await rollups.stop();
      await retention.stop();
      await access.stop();
      await usage.stop();
      await audit.flushRefusals();
      await audit.settled();
      await maintenance.stop();
      watchdog.stop();
      await store.close();
    },
  };
}
