import { create, toBinary, type DescExtension, type DescFile } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import * as v1 from "../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb.js";

/** A reflection request, reduced to what v1 and v1alpha have in common. */
type Question = v1.ServerReflectionRequest["messageRequest"] | v1alpha.ServerReflectionRequest["messageRequest"];

/** A reflection response body, in the init shape both v1 and v1alpha accept. */
type Answer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: Code; errorMessage: string } };

/**
 * Registers gRPC server reflection (`grpc.reflection.v1` and `v1alpha`) so that tools such as
 * `buf curl` and `grpcurl` can discover the API. `files` and their transitive dependencies are
 * served; `serviceNames` (plus the reflection services) are listed. Throws if a name is not a
 * service declared in `files`.
 */
export function registerReflection(router: ConnectRouter, files: DescFile[], serviceNames: string[]): void {
  const reflectionFiles = [v1.file_grpc_reflection_v1_reflection, v1alpha.file_grpc_reflection_v1alpha_reflection];
  const answer = createAnswerer([...files, ...reflectionFiles], [
    ...new Set([...serviceNames, v1.ServerReflection.typeName, v1alpha.ServerReflection.typeName]),
  ]);
  router.service(v1.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) {
        yield create(v1.ServerReflectionResponseSchema, {
          validHost: req.host,
          originalRequest: req,
          messageResponse: answer(req.messageRequest),
        });
      }
    },
  });
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) {
        yield create(v1alpha.ServerReflectionResponseSchema, {
          validHost: req.host,
          originalRequest: req,
          messageResponse: answer(req.messageRequest),
        });
      }
    },
  });
}

/** Indexes every file, symbol and extension once, and returns the function that answers. */
function createAnswerer(roots: DescFile[], serviceNames: string[]): (q: Question) => Answer {
  const byFileName = new Map<string, DescFile>();
  const bySymbol = new Map<string, DescFile>();
  const extensions: DescExtension[] = [];
  const visit = (file: DescFile): void => {
    if (byFileName.has(file.proto.name)) return;
    byFileName.set(file.proto.name, file);
    file.dependencies.forEach(visit);
    for (const type of nestedTypes(file)) {
      bySymbol.set(type.typeName, file);
      if (type.kind === "service") type.methods.forEach((m) => bySymbol.set(`${type.typeName}.${m.name}`, file));
      if (type.kind === "extension") extensions.push(type);
    }
  };
  roots.forEach(visit);
  for (const name of serviceNames) {
    if (!bySymbol.has(name)) throw new Error(`reflection: service ${name} is not declared in the given files`);
  }

  const notFound = (what: string): Answer => ({
    case: "errorResponse",
    value: { errorCode: Code.NotFound, errorMessage: `${what} not found` },
  });
  const filesFrom = (file: DescFile | undefined, what: string): Answer =>
    file === undefined
      ? notFound(what)
      : { case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(file).map(encode) } };

  return (q) => {
    switch (q.case) {
      case "listServices":
        return { case: "listServicesResponse", value: { service: serviceNames.map((name) => ({ name })) } };
      case "fileByFilename":
        return filesFrom(byFileName.get(q.value), `file ${q.value}`);
      case "fileContainingSymbol":
        return filesFrom(bySymbol.get(q.value), `symbol ${q.value}`);
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = q.value;
        const ext = extensions.find((e) => e.extendee.typeName === containingType && e.number === extensionNumber);
        return filesFrom(ext?.file, `extension ${extensionNumber} of ${containingType}`);
      }
      case "allExtensionNumbersOfType":
        if (!bySymbol.has(q.value)) return notFound(`type ${q.value}`);
        return {
          case: "allExtensionNumbersResponse",
          value: {
            baseTypeName: q.value,
            extensionNumber: extensions.filter((e) => e.extendee.typeName === q.value).map((e) => e.number),
          },
        };
      default:
        return { case: "errorResponse", value: { errorCode: Code.InvalidArgument, errorMessage: "empty request" } };
    }
  };
}

/** The file first, then every file it imports, transitively, each once. */
function withDependencies(file: DescFile): DescFile[] {
  const seen = new Set<DescFile>([file]);
  for (const f of seen) f.dependencies.forEach((d) => seen.add(d));
  return [...seen];
}

function encode(file: DescFile): Uint8Array {
  return toBinary(FileDescriptorProtoSchema, file.proto);
}
