import type { DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { notYetImplemented } from "../core/errors.js";

/**
 * Completes a partial service implementation: every RPC not yet built answers UNIMPLEMENTED with
 * a message that names it, never a fake result.
 */
export function withUnimplemented<S extends DescService>(service: S, impl: Partial<ServiceImpl<S>>): ServiceImpl<S> {
  const full: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    if (!(method.localName in full)) {
      full[method.localName] = () => {
        throw notYetImplemented(`${service.typeName}/${method.name}`);
      };
    }
  }
  return full as ServiceImpl<S>;
}
