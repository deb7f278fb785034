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
const KEY = "ui-admin-key-0123456789abcdef";

let browser: Browser;
let dev: RealServer;
let keyed: RealServer;

const at = (day: string) => ({ seconds: BigInt(Date.parse(day) / 1000), nanos: 0 });

async function seed(client: AgentMem, user: string): Promise<void> {
  await client.memory.rememberBatch({
    items: [
      { scope: { user }, content: "I had knee surgery in March and I am still on crutches.", observedAt: at("2024-03-01") },
      { scope: { user }, content: "My daughter Lea starts school in September.", name: "Maya" },
      { scope: { user }, content: "I prefer short answers without emojis.", factType: 2 },
    ],
  });
  const say = (content: string) => [{ role: "user", name: "Maya", content }];
  await client.add({ scope: { user }, messages: say("I live in London and work as a nurse at St Thomas'."), observedAt: at("2025-01-14") });
  await client.add({ scope: { user }, messages: say("Big news: I just moved from London to Paris for a job at a payments startup."), observedAt: at("2026-03-02") });
  await client.drift.check({ scope: { user, session: "s1" }, goal: "Help Maya settle into her new job in Paris.", constraints: ["keep answers short"] });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  await buildUi();
  await mkdir(OUTPUT, { recursive: true });
  [dev, keyed] = await Promise.all([startRealServer(), startRealServer({ apiKeys: `${KEY}:acme:admin` })]);
  await seed(new AgentMem({ baseUrl: dev.url }), "maya");
  await seed(new AgentMem({ baseUrl: keyed.url, apiKey: KEY }), "maya");
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([dev?.close(), keyed?.close()]);
});

describe("the memory explorer page in Chromium", { timeout: 120_000 }, () => {
  it("finds “knee surgery” for “surgery” with a match strength and shows the four gauges (dev mode)", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${dev.url}/ui/?user=maya&session=s1`);
    await page.fill("#query-input", "surgery");
    await page.press("#query-input", "Enter");
    const hit = page.locator(".hit", { hasText: "knee surgery" });
    await hit.waitFor();
    expect(["strong", "moderate", "weak"]).toContain(await hit.getAttribute("data-strength"));
    expect(await hit.locator(".badge").textContent()).toBe(await hit.getAttribute("data-strength"));
    expect(await hit.locator(".sim").textContent()).toMatch(/^sim \d\.\d\d$/);
    expect(await hit.locator("[data-why]").textContent()).toContain("words");

    const gauges = page.locator("[data-gauge]");
    expect(await gauges.count()).toBe(4);
    expect(await gauges.evaluateAll((els) => els.map((e) => e.getAttribute("data-gauge")))).toEqual(["trust", "sentiment", "grudge", "familiarity"]);
    for (const g of await gauges.all()) expect(await g.isVisible()).toBe(true);
    // Until RelationalService lands the gauges are empty and say why; after, they hold values.
    const message = page.locator("#relation-message");
    await page.waitForFunction(() => {
      const m = document.querySelector("#relation-message") as HTMLElement;
      return !m.hidden || document.querySelector("[data-gauge='trust']")?.getAttribute("data-value") !== "";
    });
    if (await message.isVisible()) expect(await message.textContent()).toMatch(/UNIMPLEMENTED|RelationalService/);
    else expect(Number(await page.locator("[data-gauge='trust']").getAttribute("data-value"))).toBeGreaterThanOrEqual(0);

    // The timeline shows the supersede chain: London closed as outdated, then Paris.
    const outdated = page.locator(".chain .fact[data-outdated=true]", { hasText: "London" });
    await outdated.waitFor();
    expect(await outdated.locator(".flag").textContent()).toBe("outdated as of Mar 02, 2026");
    const chain = outdated.locator("xpath=..");
    expect(await chain.locator(".fact").count()).toBe(2);
    expect(await chain.locator(".fact").nth(1).textContent()).toContain("Paris");
    await page.locator(".turn").first().waitFor();
    expect(await page.locator(".turn").count()).toBe(5);
    await page.locator("#drift dd", { hasText: "Help Maya settle" }).waitFor();
    await page.screenshot({ path: join(OUTPUT, "ui-explorer.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("asks for an API key once, keeps it in the browser, and then works", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${keyed.url}/ui/?user=maya`);
    await page.locator("#notice", { hasText: "API key" }).waitFor();

    await page.click("#key-button");
    await page.fill("#key-input", KEY);
    await page.click("#key-dialog button[value=save]");
    await page.locator(".fact").first().waitFor();
    expect(await page.evaluate(() => localStorage.getItem("agentmem.apiKey"))).toBe(KEY);

    await page.reload();
    await page.fill("#query-input", "surgery");
    await page.press("#query-input", "Enter");
    await page.locator(".hit", { hasText: "knee surgery" }).waitFor();
    expect(await page.locator("#notice").isHidden()).toBe(true);
    await context.close();
  });

  it("serves the page with a strict content security policy and answers 404 outside it", async () => {
    const res = await fetch(`${dev.url}/ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect((await fetch(`${dev.url}/ui/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${dev.url}/ui`, { redirect: "manual" })).status).toBe(308);
  });
});
