import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import type { ConnectError } from "@connectrpc/connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { tooLarge } from "../core/errors.js";
import { toConnectError } from "./error-interceptor.js";
import type { DualHandler } from "./listener.js";

type Head = Record<string, string>;
interface CapResponse {
  writeHead(status: number, headers: Head): unknown;
  addTrailers(trailers: Head): void;
  end(body?: Buffer): unknown;
}

function headersOf(h: Headers): Head {
  const out: Head = {};
  h.forEach((value, key) => (out[key] = value));
  return out;
}

/**
 * Refuses a request whose declared `Content-Length` is over the body cap before any of its body
 * is read, with the answer the spec gives oversized input: `INVALID_ARGUMENT` / `LIMIT_EXCEEDED`
 * naming the field (`body`) and the limit in an `ErrorInfo`, in the caller's protocol (Connect
 * unary, gRPC, gRPC-Web). A body sent without a length (chunked, gRPC) is counted as connect-node
 * reads it and refused the same way once it passes the cap. (connect-node's own `readMaxBytes`
 * stays set as a backstop; its answer, `resource_exhausted` without details, is raised before any
 * interceptor could add them.)
 */
export function refuseOversizedBodies(api: DualHandler, maxBodyBytes: number): DualHandler {
  const refusal = (size: string) => toConnectError(tooLarge("body", `request body of ${size} bytes is over the ${maxBodyBytes}-byte limit`, maxBodyBytes));
  return (req, res) => {
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    if (!(declared > maxBodyBytes)) {
      countBody(req, maxBodyBytes, refusal, /^application\/grpc(-web)?(\+proto|\+json)?(;|$)/.test(String(req.headers["content-type"] ?? "")));
      return api(req, res);
    }
    const contentType = String(req.headers["content-type"] ?? "");
    const error = refusal(String(declared));
    const out = res as unknown as CapResponse;
    if (contentType.startsWith("application/grpc-web")) {
      // gRPC-Web allows a trailers-only answer in the headers.
      out.writeHead(200, { "content-type": contentType, ...headersOf(setTrailerStatus(new Headers(), error)) });
      out.end();
    } else if (contentType.startsWith("application/grpc")) {
      out.writeHead(200, { "content-type": contentType });
      out.addTrailers(headersOf(setTrailerStatus(new Headers(), error)));
      out.end();
    } else if (contentType.startsWith("application/connect+")) {
      // A Connect stream reports errors in its end-of-stream message: leave it to connect-node.
      return api(req, res);
    } else {
      const body = Buffer.from(errorToJsonBytes(error, {}));
      // HTTP/1.1: close rather than drain a body nobody wants (HTTP/2 ends just the stream).
      const close: Head = req.httpVersionMajor === 1 ? { connection: "close" } : {};
      out.writeHead(codeToHttpStatus(error.code), { "content-type": "application/json", "content-length": String(body.length), ...close });
      out.end(body);
    }
  };
}

type BodyRequest = Parameters<DualHandler>[0];

/**
 * Makes the request's body iteration (what connect-node reads the body with) throw the refusal as
 * soon as more than `max` bytes have arrived — or, for gRPC framing (`enveloped`), as soon as the
 * first message's 5-byte envelope header announces more — so connect-node, which answers a thrown
 * `ConnectError` as is, never gets to raise its own detail-less limit error first.
 */
function countBody(req: BodyRequest, max: number, refusal: (size: string) => ConnectError, enveloped: boolean): void {
  const read = req[Symbol.asyncIterator].bind(req) as () => AsyncIterator<Buffer>;
  Object.defineProperty(req, Symbol.asyncIterator, {
    configurable: true,
    value: async function* counted(): AsyncGenerator<Buffer> {
      let seen = 0;
      let head = Buffer.alloc(0);
      const chunks = read();
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        seen += next.value.length;
        if (enveloped && head.length < 5) head = Buffer.concat([head, next.value.subarray(0, 5 - head.length)]);
        const announced = enveloped && head.length === 5 ? head.readUInt32BE(1) : 0;
        if (seen > max || announced > max) {
          await chunks.return?.();
          throw refusal(announced > max ? String(announced) : `more than ${max}`);
        }
        yield next.value;
      }
    },
  });
}
