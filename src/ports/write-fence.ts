/**
 * Lets the store drop rows about an end-user that is being, or has been, erased after the write
 * carrying them began (Erase as a barrier). The store asks at commit time, inside the table's
 * write queue, so a row either commits before the erasure purges the table or is dropped.
 */
export interface WriteFence {
  /** The calling write's ticket (taken when it began), read when rows are queued; undefined outside a fenced call. */
  ticket(): number | undefined;
  /** False when rows about `user` of `tenant` queued under `ticket` must not land. */
  admits(tenant: string, user: string, ticket: number | undefined): boolean;
}
