import { type Api, createApi, describeError, saveKey, storedKey } from "./api.js";
import { byId, fill, message } from "./dom.js";
import { renderConversation, renderConversationList } from "./views/conversations.js";
import { renderAnchors, renderCheck } from "./views/drift.js";
import { renderHits } from "./views/explorer.js";
import { renderGauges } from "./views/gauges.js";
import { renderHistory } from "./views/history.js";
import { renderTimeline } from "./views/timeline.js";

/** How often the gauges refresh while the page is visible. */
const LIVE_MS = 5_000;
const TIMELINE_ROWS = 300;
const HISTORY_TURNS = 50;
const CONVERSATIONS = 50;
const CONVERSATION_MESSAGES = 200;

const api: Api = createApi();
const params = new URLSearchParams(location.search);
let user = params.get("user") ?? "";
let session = params.get("session") ?? "";
let conversation = params.get("conversation") ?? "";

const el = {
  userForm: byId<HTMLFormElement>("user-form"),
  userInput: byId<HTMLInputElement>("user-input"),
  userList: byId<HTMLDataListElement>("user-list"),
  serverInfo: byId("server-info"),
  notice: byId("notice"),
  keyButton: byId<HTMLButtonElement>("key-button"),
  keyDialog: byId<HTMLDialogElement>("key-dialog"),
  keyForm: byId<HTMLFormElement>("key-form"),
  keyInput: byId<HTMLInputElement>("key-input"),
  gauges: byId("gauges"),
  relationMeta: byId("relation-meta"),
  relationMessage: byId("relation-message"),
  queryForm: byId<HTMLFormElement>("query-form"),
  queryInput: byId<HTMLInputElement>("query-input"),
  queryMode: byId<HTMLSelectElement>("query-mode"),
  queryK: byId<HTMLInputElement>("query-k"),
  results: byId("results"),
  explorerMeta: byId("explorer-meta"),
  timeline: byId("timeline"),
  timelineMeta: byId("timeline-meta"),
  history: byId("history"),
  historyMeta: byId("history-meta"),
  driftForm: byId<HTMLFormElement>("drift-form"),
  sessionInput: byId<HTMLInputElement>("session-input"),
  drift: byId("drift"),
  driftMeta: byId("drift-meta"),
  checkForm: byId<HTMLFormElement>("check-form"),
  checkInput: byId<HTMLTextAreaElement>("check-input"),
  checkResult: byId("check-result"),
  conversationList: byId("conversation-list"),
  conversationsMeta: byId("conversations-meta"),
  conversation: byId("conversation"),
};

/** Shows a failure where it happened; an auth failure also raises the page-wide notice. */
function fail(target: HTMLElement, error: unknown, rpc: string): void {
  const failure = describeError(error, rpc);
  fill(target, message(failure.text, failure.kind === "error"));
  if (failure.kind === "auth") notice(failure.text, true);
}

function notice(text: string, error = false): void {
  el.notice.hidden = text === "";
  el.notice.className = error ? "notice error" : "notice";
  fill(el.notice, text);
}

const scope = () => ({ user });

async function loadServerInfo(): Promise<void> {
  try {
    const stats = await api.memory.stats({});
    const e = stats.embedding;
    fill(el.serverInfo, `embedder ${e?.mode ?? "?"} (${e?.dimension ?? 0}-d${e?.semantic ? "" : ", words only"}) · llm ${stats.llm?.mode ?? "none"}`);
    notice("");
  } catch (error) {
    const failure = describeError(error, "MemoryService.Stats");
    notice(failure.text, true);
  }
}

/** Fills the user picker with the end-users that have memories (first page of the tenant). */
async function loadUsers(): Promise<void> {
  try {
    const page = await api.memory.listMemories({ scope: {}, pageSize: 1000 });
    const users = [...new Set(page.memories.map((m) => m.scope?.user ?? "").filter(Boolean))].sort();
    fill(el.userList, ...users.map((u) => Object.assign(document.createElement("option"), { value: u })));
  } catch {
    // The picker is a convenience; typing a user id still works.
  }
}

async function loadState(): Promise<void> {
  if (!user) return renderGauges(el.gauges, el.relationMeta, null);
  try {
    const state = await api.relational.getState({ scope: scope() });
    renderGauges(el.gauges, el.relationMeta, state);
    el.relationMessage.hidden = true;
  } catch (error) {
    renderGauges(el.gauges, el.relationMeta, null);
    el.relationMessage.hidden = false;
    fail(el.relationMessage, error, "RelationalService.GetState");
  }
}

async function loadTimeline(): Promise<void> {
  try {
    const page = await api.memory.listMemories({ scope: scope(), pageSize: TIMELINE_ROWS });
    renderTimeline(el.timeline, el.timelineMeta, page.memories, page.nextPageToken !== "");
  } catch (error) {
    fail(el.timeline, error, "MemoryService.ListMemories");
  }
}

async function loadHistory(): Promise<void> {
  try {
    let page = await api.memory.history({ scope: scope(), from: 0, size: HISTORY_TURNS });
    if (page.total > BigInt(HISTORY_TURNS)) page = await api.memory.history({ scope: scope(), from: Number(page.total) - HISTORY_TURNS, size: HISTORY_TURNS });
    renderHistory(el.history, el.historyMeta, page.turns, page.total);
  } catch (error) {
    fail(el.history, error, "MemoryService.History");
  }
}

async function loadDrift(): Promise<void> {
  if (!session) return fill(el.drift, message("Type a session id to see its drift anchors."));
  try {
    renderAnchors(el.drift, el.driftMeta, session, await api.drift.getAnchors({ scope: { ...scope(), session } }));
  } catch (error) {
    fail(el.drift, error, "DriftService.GetAnchors");
  }
}

async function loadConversations(): Promise<void> {
  try {
    const page = await api.conversations.listConversations({ scope: scope(), pageSize: CONVERSATIONS });
    renderConversationList(el.conversationList, el.conversationsMeta, page.conversations, page.nextPageToken !== "", conversation, (id) => void openConversation(id));
  } catch (error) {
    fail(el.conversationList, error, "ConversationService.ListConversations");
  }
}

async function openConversation(id: string): Promise<void> {
  conversation = id;
  syncUrl();
  el.conversationList.querySelectorAll<HTMLElement>(".conversation").forEach((item) => item.classList.toggle("selected", item.dataset.id === id));
  if (!id) return;
  try {
    const [c, page] = await Promise.all([
      api.conversations.getConversation({ scope: scope(), conversationId: id }),
      api.conversations.listMessages({ scope: scope(), conversationId: id, pageSize: CONVERSATION_MESSAGES, newestFirst: true }),
    ]);
    renderConversation(el.conversation, c.conversation!, [...page.messages].reverse(), page.nextPageToken !== "");
  } catch (error) {
    fail(el.conversation, error, "ConversationService.GetConversation");
  }
}

async function runQuery(): Promise<void> {
  const query = el.queryInput.value.trim();
  if (!query) return;
  if (!user) return fill(el.results, message("Pick an end-user first."));
  const k = Math.max(1, Math.min(100, Number(el.queryK.value) || 10));
  const search = el.queryMode.value === "search";
  fill(el.results, message("Searching…"));
  try {
    const res = search
      ? await api.memory.search({ scope: scope(), query, k })
      : await api.memory.recall({ scope: scope(), query, k, includeHistory: true });
    renderHits(el.results, el.explorerMeta, res.hits, res.tookMillis, query);
  } catch (error) {
    fail(el.results, error, search ? "MemoryService.Search" : "MemoryService.Recall");
  }
}

async function scoreAnswer(): Promise<void> {
  const response = el.checkInput.value.trim();
  if (!response || !session) return fill(el.checkResult, message("Type a session id and an answer to score."));
  try {
    renderCheck(el.checkResult, await api.drift.check({ scope: { ...scope(), session }, response }));
    await loadDrift();
  } catch (error) {
    fail(el.checkResult, error, "DriftService.Check");
  }
}

function syncUrl(): void {
  const next = new URLSearchParams();
  if (user) next.set("user", user);
  if (session) next.set("session", session);
  if (conversation) next.set("conversation", conversation);
  history.replaceState(null, "", `${location.pathname}${next.size ? `?${next}` : ""}`);
}

async function openUser(next: string): Promise<void> {
  user = next.trim();
  el.userInput.value = user;
  syncUrl();
  if (!user) {
    notice("Pick or type an end-user to explore their memory.");
    return renderGauges(el.gauges, el.relationMeta, null);
  }
  await Promise.all([loadState(), loadTimeline(), loadHistory(), loadDrift(), loadConversations(), openConversation(conversation), el.queryInput.value ? runQuery() : Promise.resolve()]);
}

el.userForm.addEventListener("submit", (e) => {
  e.preventDefault();
  conversation = "";
  fill(el.conversation, message("Pick a conversation to read its messages and traces."));
  void openUser(el.userInput.value);
});
el.queryForm.addEventListener("submit", (e) => {
  e.preventDefault();
  void runQuery();
});
el.driftForm.addEventListener("submit", (e) => {
  e.preventDefault();
  session = el.sessionInput.value.trim();
  syncUrl();
  void loadDrift();
});
el.checkForm.addEventListener("submit", (e) => {
  e.preventDefault();
  void scoreAnswer();
});
el.keyButton.addEventListener("click", () => {
  el.keyInput.value = storedKey();
  el.keyDialog.showModal();
});
el.keyForm.addEventListener("submit", (e) => {
  const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
  saveKey(submitter?.value === "clear" ? "" : el.keyInput.value);
  el.keyButton.textContent = storedKey() ? "API key ✓" : "API key";
  void loadServerInfo().then(loadUsers).then(() => openUser(user));
});

el.keyButton.textContent = storedKey() ? "API key ✓" : "API key";
el.sessionInput.value = session;
renderGauges(el.gauges, el.relationMeta, null);
void loadServerInfo().then(loadUsers);
void openUser(user);
setInterval(() => {
  if (user && document.visibilityState === "visible") void loadState();
}, LIVE_MS);
