import type { Condition } from "./condition.js";
import { where } from "./condition.js";
import { invalidArgument } from "./errors.js";
import type { ScopeKey } from "./records.js";

/** A scope as it arrives on the wire. */
export interface ScopeInput {
  tenant: string;
  namespace: string;
  agent: string;
  session: string;
  user: string;
}

/** A valid scope value (tenant, namespace, agent, session, user): 1–128 of [A-Za-z0-9_.:@-]. */
export const SCOPE_VALUE = /^[A-Za-z0-9_.:@-]{1,128}$/;
const FIELDS = ["namespace", "agent", "session", "user"] as const;

/** Checks one scope value (1–128 of [A-Za-z0-9_.:@-]); empty is allowed unless `required`. */
export function checkScopeValue(field: string, value: string, required = false): void {
  if (value === "" && !required) return;
  if (!SCOPE_VALUE.test(value)) {
    throw invalidArgument(field, "INVALID_SCOPE", `${field} must be 1–128 characters of [A-Za-z0-9_.:@-]`);
  }
}

/** Validates a wire scope and returns its stored columns. */
export function scopeKey(scope: ScopeInput | undefined, options: { requireUser?: boolean } = {}): ScopeKey {
  const s = scope ?? { tenant: "", namespace: "", agent: "", session: "", user: "" };
  checkScopeValue("scope.tenant", s.tenant);
  for (const f of FIELDS) checkScopeValue(`scope.${f}`, s[f], f === "user" && options.requireUser === true);
  return { namespace: s.namespace, agent: s.agent, session: s.session, user: s.user };
}

/** True when the scope names nothing below the tenant. */
export function isGlobal(key: ScopeKey): boolean {
  return FIELDS.every((f) => key[f] === "");
}

/** Equality on every non-empty scope field (an empty field matches all). */
export function scopeCondition(key: ScopeKey): Condition {
  return where.and(...FIELDS.filter((f) => key[f] !== "").map((f) => where.eq(f, key[f])));
}

/** True when a stored row lies inside the scope. */
export function inScope(key: ScopeKey, row: ScopeKey): boolean {
  return FIELDS.every((f) => key[f] === "" || key[f] === row[f]);
}
