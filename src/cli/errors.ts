import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";

/** One line for any failure of a CLI command: what went wrong and, when known, what to do. */
export function describeCliError(error: unknown, url?: string): string {
  if (!(error instanceof ConnectError)) return error instanceof Error ? error.message : String(error);
  const reason = error.findDetails(ErrorInfoSchema)[0]?.reason;
  const why = reason ? ` (${reason})` : "";
  switch (error.code) {
    case Code.Unavailable:
      return `cannot reach the agentmem server${url ? ` at ${url}` : ""}: ${error.rawMessage} — is \`agentmem serve\` running? (--url / AGENTMEM_URL)`;
    case Code.Unimplemented:
      return `this server does not implement that call yet (UNIMPLEMENTED): ${error.rawMessage}`;
    case Code.Unauthenticated:
      return `not authenticated${why}: ${error.rawMessage} — pass --key or set AGENTMEM_API_KEY`;
    default:
      return `${codeName(error.code)}${why}: ${error.rawMessage}`;
  }
}

/** `INVALID_ARGUMENT` for `Code.InvalidArgument`: the gRPC spelling users see in docs. */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}
