import type { Collection, Keyed } from "../ports/collection.js";

/** The reads (and deletes) a service makes: of one end-user's rows, or of a whole collection. */
export type Reads<T extends Keyed> = Pick<Collection<T>, "get" | "find" | "project" | "count" | "nearest" | "match" | "delete">;

/**
 * Reads of `user`'s rows when a request names one (`Collection.forUser`: a cache layer answers them
 * from that user's rows in memory; `""` is the rows stored without an end-user), else of every row.
 * With a user, conditions need not repeat it.
 */
export function readsOf<T extends Keyed>(collection: Collection<T>, user: string | undefined): Reads<T> {
  return user === undefined ? collection : collection.forUser(user);
}

/** The end-user a scope names for `readsOf`: none when its `user` is empty (a scope over every user). */
export function scopeUser(key: { user: string }): string | undefined {
  return key.user === "" ? undefined : key.user;
}
