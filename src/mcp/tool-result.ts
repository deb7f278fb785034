import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AgentMemError } from "../core/errors.js";
import { BadRequestSchema, ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { toConnectError } from "../server/error-interceptor.js";

/** A tool's JSON answer: the structured content, also serialised as text for clients that read only text. */
export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/** An RPC response in its Connect JSON form (lowerCamelCase fields, enum names). */
export function messageJson<D extends DescMessage>(schema: D, message: MessageShape<D>): Record<string, unknown> {
  return toJson(schema, message) as Record<string, unknown>;
}

/** `InvalidArgument` → `INVALID_ARGUMENT`: the gRPC code name, as the Python client and docs spell it. */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The parts of a failed call an agent (or its developer) needs. */
export interface ToolError {
  code: string;
  reason: string;
  field: string;
  message: string;
}

/** Reads code, ErrorInfo reason and the first field violation from any error a tool met. */
export function toolError(error: unknown): ToolError {
  const ce = error instanceof AgentMemError ? toConnectError(error) : ConnectError.from(error);
  const reason = ce.findDetails(ErrorInfoSchema)[0]?.reason ?? "";
  const field = ce.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field ?? "";
  return { code: codeName(ce.code), reason, field, message: ce.rawMessage };
}

/** A refused call as a tool result: `isError`, the same code and reason the RPC gave. */
export function errorResult(error: unknown): CallToolResult {
  const e = toolError(error);
  const text = `${e.code}${e.reason ? ` ${e.reason}` : ""}${e.field ? ` (${e.field})` : ""}: ${e.message}`;
  return { isError: true, content: [{ type: "text", text }], structuredContent: { error: e } };
}

/** Runs a tool body and turns any failure into {@link errorResult}. */
export async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return errorResult(error);
  }
}
