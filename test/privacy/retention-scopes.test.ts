import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Plan } from "../../src/gen/agentmem/v1/common_pb.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../../src/gen/agentmem/v1/privacy_service_pb.js";
import { createTestApp, type TestApp } from "../support/harness.js";

const ADMIN = "admin-key-scopescopescope1";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ apiKeys: `${ADMIN}:scoped:admin` });
});
afterAll(() => t.close());

const items = (scope: { namespace?: string; agent?: string; session?: string; user?: string }, n: number, label: string) =>
  Array.from({ length: n }, (_, i) => ({ scope, content: `${label} message ${i}`, observedAt: { seconds: BigInt(1_700_000_000 + i), nanos: 0 } }));

describe("retention caps for rows without scope.user", { timeout: 180_000 }, () => {
  it("caps the tenant scope and each agent / namespace scope at the plan's limit, after every write and by Sweep", async () => {
    const memory = t.client(MemoryService, ADMIN);
    const privacy = t.client(PrivacyService, ADMIN);
    // Written under ENTERPRISE (unlimited), then the plan drops: Sweep trims each user-less scope.
    await memory.rememberBatch({ items: [...items({}, 520, "tenant"), ...items({ agent: "helper" }, 480, "agent")] });
    await memory.rememberBatch({ items: [...items({ agent: "helper" }, 30, "agent more"), ...items({ namespace: "ops", session: "s1" }, 260, "ns1"), ...items({ namespace: "ops", session: "s2" }, 260, "ns2")] });
    await privacy.setRetention({ plan: Plan.COMMUNITY });
    const swept = await privacy.sweep({});
    expect(swept).toMatchObject({ episodes: 20n + 10n + 20n, usersTrimmed: 3n });
    expect((await memory.history({ scope: { agent: "helper" }, size: 1 })).total).toBe(500n);
    const ops = await memory.history({ scope: { namespace: "ops" }, size: 1 });
    expect(ops.total).toBe(500n);
    // Both sessions count together: the 20 oldest turns of the namespace (10 of each session, same times) went.
    expect(ops.turns[0].content).toMatch(/^ns[12] message 10$/);

    // After a write, the cap holds at once for that scope.
    await memory.rememberBatch({ items: items({ agent: "helper" }, 5, "late agent").map((x, i) => ({ ...x, observedAt: { seconds: BigInt(1_800_000_000 + i), nanos: 0 } })) });
    expect((await memory.history({ scope: { agent: "helper" }, size: 1 })).total).toBe(500n);
    await privacy.setRetention({ plan: Plan.ENTERPRISE });
  });
});
