import type { Interceptor } from "@connectrpc/connect";

/** Something that defers background work while requests are in flight (the store's loader of cold partitions). */
export interface BusyGate {
  serving<R>(work: () => Promise<R>): Promise<R>;
}

/**
 * Marks every RPC as in flight for the whole of its handling, so background loads into the
 * hot-row cache start only between requests — after an answer, never between two reads of one.
 */
export function createBusyInterceptor(gate: BusyGate): Interceptor {
  return (next) => (req) => gate.serving(() => next(req));
}
