import { createContextValues, createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { Principal } from "../core/principal.js";
import { MemoryService } from "../gen/agentmem/v1/memory_service_pb.js";
import { auditIdOf, auditNoteKey, noteAudit, principalKey, resolveTenant, scopesOf, tenantOf } from "./request-context.js";

/** A handler context as the interceptors leave it: with this principal (none = no auth interceptor ran). */
function contextOf(principal?: Principal): HandlerContext {
  const contextValues = createContextValues();
  if (principal) contextValues.set(principalKey, principal);
  const method = MemoryService.method.remember;
  return createHandlerContext({ service: MemoryService, method, protocolName: "connect", requestMethod: "POST", url: "/", contextValues });
}

const acme = contextOf({ keyId: "k1", tenant: "acme", role: "write" });
const dev = contextOf({ keyId: "dev", tenant: null, role: "admin" });

describe("request context", () => {
  it("resolveTenant pins a key's tenant, refuses another one, and trusts dev mode's named tenant", () => {
    expect(resolveTenant(acme, "")).toBe("acme");
    expect(resolveTenant(acme, "acme")).toBe("acme");
    expect(() => resolveTenant(acme, "globex")).toThrow(expect.objectContaining({ code: "PERMISSION_DENIED", reason: "TENANT_MISMATCH" }));
    expect(resolveTenant(dev, "globex")).toBe("globex");
    expect(resolveTenant(dev, "")).toBe("default");
    expect(() => resolveTenant(dev, "bad tenant")).toThrow(expect.objectContaining({ reason: "INVALID_SCOPE" }));
  });

  it("resolveTenant fails closed without a principal", () => {
    expect(() => resolveTenant(contextOf(), "acme")).toThrow(expect.objectContaining({ code: "UNAUTHENTICATED", reason: "NO_PRINCIPAL" }));
  });

  it("tenantOf settles on what resolveTenant will, for every scope a request names", () => {
    const batch = { items: [{ scope: { tenant: "globex", user: "u1" } }, { scope: { user: "u2" } }, {}] };
    expect(scopesOf(batch)).toEqual([{ tenant: "globex", user: "u1" }, { user: "u2" }]);
    expect(scopesOf({ scope: { user: "u" } })).toEqual([{ user: "u" }]);
    expect(scopesOf({})).toEqual([]);
    // A key's tenant wins over whatever the request names (the handler then refuses a mismatch).
    expect(scopesOf(batch).map((s) => tenantOf(acme, s))).toEqual(["acme", "acme"]);
    expect(scopesOf(batch).map((s) => tenantOf(dev, s))).toEqual(["globex", "default"]);
    expect(tenantOf(dev, undefined)).toBe("default");
  });

  it("noteAudit adds to the call's audit note, and does nothing for a call that is not audited", () => {
    const ctx = contextOf();
    noteAudit(ctx, { rows: 1 });
    expect(auditIdOf(ctx)).toBe("");
    ctx.values.set(auditNoteKey, { id: "a1", counts: {} });
    noteAudit(ctx, { rows: 2 }, { namespace: "", agent: "", session: "", user: "u" });
    expect(auditIdOf(ctx)).toBe("a1");
    expect(ctx.values.get(auditNoteKey)).toEqual({ id: "a1", counts: { rows: 2 }, scope: { namespace: "", agent: "", session: "", user: "u" } });
  });
});
