/** A caller's role; each includes the ones before it. */
export type Role = "read" | "write" | "admin";

/** Who is calling: resolved once per request by the auth interceptor. */
export interface Principal {
  /** Key id for logs and audit (never the key itself); "dev" in dev mode. */
  keyId: string;
  /** The tenant pinned from the key; null in dev mode (the request may name one). */
  tenant: string | null;
  role: Role;
}
