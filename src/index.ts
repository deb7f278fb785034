export { createApp, type App, type AppOverrides } from "./app.js";
export { loadConfig, type Config, type ApiKey } from "./config.js";
export { startServer, type RunningServer } from "./compose/start-server.js";
export * from "./gen/agentmem/v1/common_pb.js";
export * from "./gen/agentmem/v1/memory_service_pb.js";
export * from "./gen/agentmem/v1/drift_service_pb.js";
export * from "./gen/agentmem/v1/relational_service_pb.js";
export * from "./gen/agentmem/v1/privacy_service_pb.js";
