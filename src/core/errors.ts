/** The closed set of error codes the domain raises; the transport maps each to a Connect code. */
export type ErrorCode =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "PERMISSION_DENIED"
  | "UNAUTHENTICATED"
  | "RESOURCE_EXHAUSTED"
  | "FAILED_PRECONDITION"
  | "UNIMPLEMENTED"
  | "UNAVAILABLE"
  | "INTERNAL";

/** A domain error: a code, an UPPER_SNAKE_CASE reason (sent as ErrorInfo) and an optional field. */
export class AgentMemError extends Error {
  override readonly name = "AgentMemError";
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    message: string,
    readonly field?: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Bad input: `INVALID_ARGUMENT` naming the offending field. */
export function invalidArgument(field: string, reason: string, message: string): AgentMemError {
  return new AgentMemError("INVALID_ARGUMENT", reason, message, field);
}

/**
 * Input over a size or count limit: `INVALID_ARGUMENT` / `LIMIT_EXCEEDED` naming the field and
 * the limit (`RESOURCE_EXHAUSTED` is for quotas and server capacity: clients retry it).
 */
export function tooLarge(field: string, message: string, limit: number): AgentMemError {
  return new AgentMemError("INVALID_ARGUMENT", "LIMIT_EXCEEDED", message, field, { field, limit: String(limit) });
}

/** A missing row: `NOT_FOUND`. */
export function notFound(what: string, id: string): AgentMemError {
  return new AgentMemError("NOT_FOUND", `${what.toUpperCase()}_NOT_FOUND`, `${what} ${JSON.stringify(id)} not found`);
}

/** An RPC whose issue has not landed: `UNIMPLEMENTED` with a clear message. */
export function notYetImplemented(rpc: string): AgentMemError {
  return new AgentMemError("UNIMPLEMENTED", "NOT_YET_IMPLEMENTED", `${rpc} is not implemented in this version of agentmem yet`);
}

/**
 * A model or embedding provider failed. The caller gets a generic message, the reason and the
 * HTTP status; the provider's own text (which may quote keys or internal host names) is kept in
 * `detail` for the server log only.
 */
export class ProviderFailure extends AgentMemError {
  constructor(
    reason: string,
    message: string,
    metadata: Record<string, string>,
    readonly detail: string,
  ) {
    super("UNAVAILABLE", reason, message, undefined, metadata);
  }
}

/** The server-log-only detail of an error (a provider's own text), or its message. */
export function logDetailOf(error: unknown): string {
  if (error instanceof ProviderFailure) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
