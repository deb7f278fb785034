import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "pino";
import { AgentMemError, type ErrorCode, logDetailOf, ProviderFailure } from "../core/errors.js";
import { BadRequest_FieldViolationSchema, BadRequestSchema, ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";

/** ErrorInfo domain for every agentmem error. */
export const ERROR_DOMAIN = "agentmem.dev";

const CODES: Record<ErrorCode, Code> = {
  INVALID_ARGUMENT: Code.InvalidArgument,
  NOT_FOUND: Code.NotFound,
  ALREADY_EXISTS: Code.AlreadyExists,
  PERMISSION_DENIED: Code.PermissionDenied,
  UNAUTHENTICATED: Code.Unauthenticated,
  RESOURCE_EXHAUSTED: Code.ResourceExhausted,
  FAILED_PRECONDITION: Code.FailedPrecondition,
  UNIMPLEMENTED: Code.Unimplemented,
  UNAVAILABLE: Code.Unavailable,
  INTERNAL: Code.Internal,
};

/** Translates a domain error into a ConnectError with ErrorInfo (and BadRequest for a field). */
export function toConnectError(error: AgentMemError): ConnectError {
  const details = [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: error.reason, domain: ERROR_DOMAIN, metadata: error.metadata }) },
  ];
  const out = new ConnectError(error.message, CODES[error.code], undefined, details);
  if (error.field) {
    out.details.push({
      desc: BadRequestSchema,
      value: create(BadRequestSchema, {
        fieldViolations: [create(BadRequest_FieldViolationSchema, { field: error.field, description: error.message, reason: error.reason })],
      }),
    });
  }
  return out;
}

/**
 * The outermost interceptor: one log line per call (method, code, duration, request id; never
 * content) and the single place where foreign errors become ConnectErrors.
 */
export function createErrorInterceptor(logger: Logger): Interceptor {
  let counter = 0;
  return (next) => async (req) => {
    const started = performance.now();
    const method = `${req.service.typeName}/${req.method.name}`;
    const requestId = req.header.get("x-request-id") ?? `${Date.now().toString(36)}-${(counter++).toString(36)}`;
    try {
      const res = await next(req);
      logger.info({ requestId, method, code: "ok", ms: Math.round(performance.now() - started) }, "rpc");
      return res;
    } catch (error) {
      const translated =
        error instanceof AgentMemError
          ? toConnectError(error)
          : error instanceof ConnectError
            ? error
            : new ConnectError("internal error", Code.Internal);
      const level = translated.code === Code.Internal ? "error" : error instanceof ProviderFailure ? "warn" : "info";
      logger[level](
        { requestId, method, code: Code[translated.code], ms: Math.round(performance.now() - started), err: level === "info" ? undefined : logDetailOf(error) },
        "rpc",
      );
      throw translated;
    }
  };
}
