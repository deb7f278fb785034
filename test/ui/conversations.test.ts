import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error -- plain ESM build script without type declarations
import { buildUi } from "../../scripts/build-ui.mjs";
import { AgentMem } from "../../sdk/index.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const OUTPUT = join(import.meta.dirname, "..", "output");

let browser: Browser;
let server: RealServer;
let trip = "";

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  await buildUi();
  await mkdir(OUTPUT, { recursive: true });
  server = await startRealServer();
  const client = new AgentMem({ baseUrl: server.url });
  const maya = { user: "maya" };
  const older = await client.conversations.create(maya, { title: "Knee rehab", metadata: { channel: "sms" } });
  await client.conversations.append(maya, older.id, [{ content: "My physio says two more weeks." }]);
  trip = (await client.conversations.create(maya, { metadata: { channel: "web" } })).id;
  await client.conversations.append(maya, trip, [
    { role: "user", content: "Find me a morning train to Porto on Friday." },
    { role: "tool", name: "train_search", content: "train_search(Lisbon, Porto, Friday)", trace: { toolName: "train_search", arguments: '{"to":"Porto"}', result: '{"departs":"07:09"}', latencyMs: 412n } },
    { role: "assistant", content: "The 07:09 leaves from platform 4.", trace: { model: "gpt-test", inputTokens: 812n, outputTokens: 23n, latencyMs: 950n } },
  ]);
  await client.conversations.create({ user: "someone-else" }, { title: "Not Maya's" });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the conversations card in Chromium", { timeout: 120_000 }, () => {
  it("lists an end-user's conversations newest first and shows one with its tool and model traces", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}/ui/?user=maya`);
    const items = page.locator("#conversation-list .conversation");
    await items.first().waitFor();
    expect(await items.locator(".title").allTextContents()).toEqual(["Find me a morning train to Porto on Friday", "Knee rehab"]);
    expect(await page.locator("#conversations-meta").textContent()).toBe("2 conversations");
    expect(await items.first().locator(".when").textContent()).toMatch(/3 messages$/);

    await items.first().click();
    const turns = page.locator("#conversation .turn");
    await turns.first().waitFor();
    expect(await turns.count()).toBe(3);
    expect(await turns.evaluateAll((els) => els.map((e) => e.getAttribute("data-position")))).toEqual(["1", "2", "3"]);
    const tool = turns.nth(1);
    expect(await tool.locator(".who").textContent()).toContain("train_search");
    expect(await tool.locator(".trace [data-part=tool]").textContent()).toBe("tool train_search");
    expect(await tool.locator(".trace [data-part=arguments]").textContent()).toBe('arguments {"to":"Porto"}');
    expect(await tool.locator(".trace [data-part=latency]").textContent()).toBe("latency 412 ms");
    const reply = turns.nth(2);
    expect(await reply.locator(".trace [data-part=model]").textContent()).toBe("model gpt-test");
    expect(await reply.locator(".trace [data-part=tokens]").textContent()).toBe("tokens 812 in · 23 out");
    expect(await turns.first().locator(".trace").count()).toBe(0);
    expect(await page.locator("#conversation .conversation-head .tag").textContent()).toBe("channel=web");
    expect(new URL(page.url()).searchParams.get("conversation")).toBe(trip);

    // Reloading the URL opens the same conversation; another end-user sees none of Maya's.
    await page.reload();
    await page.locator("#conversation .turn").first().waitFor();
    expect(await page.locator("#conversation-list .conversation.selected .title").textContent()).toBe("Find me a morning train to Porto on Friday");
    await page.screenshot({ path: join(OUTPUT, "ui-conversations.png"), fullPage: true });
    await page.fill("#user-input", "someone-else");
    await page.press("#user-input", "Enter");
    await page.locator("#conversation-list .conversation", { hasText: "Not Maya's" }).waitFor();
    expect(await page.locator("#conversation-list .conversation").count()).toBe(1);
    expect(await page.locator("#conversation .turn").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
