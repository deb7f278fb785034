import type { Conversation, ConversationMessage, MessageTrace } from "../../gen/agentmem/v1/conversation_service_pb.js";
import { fill, h, moment } from "../dom.js";

/** Renders an end-user's conversations, newest activity first; `open` is called with the one clicked. */
export function renderConversationList(
  el: HTMLElement,
  meta: HTMLElement,
  conversations: readonly Conversation[],
  more: boolean,
  selected: string,
  open: (id: string) => void,
): void {
  fill(meta, `${conversations.length}${more ? "+" : ""} conversations`);
  if (conversations.length === 0) return fill(el, h("p", { class: "muted" }, "No conversations stored for this user."));
  fill(
    el,
    ...conversations.map((c) => {
      const item = h(
        "button",
        { type: "button", class: c.id === selected ? "conversation selected" : "conversation", "data-id": c.id, "data-archived": String(c.archived) },
        h("span", { class: "title" }, c.title || "(untitled)"),
        h("span", { class: "when" }, `${moment(c.updatedAt)} · ${c.messageCount} message${c.messageCount === 1n ? "" : "s"}${c.archived ? " · archived" : ""}`),
        c.lastMessagePreview ? h("span", { class: "preview" }, c.lastMessagePreview) : null,
      );
      item.addEventListener("click", () => open(c.id));
      return item;
    }),
  );
}

function traceLine(t: MessageTrace): HTMLElement {
  const part = (name: string, value: string) => h("span", { class: "part", "data-part": name }, h("b", {}, name), " ", value);
  return h(
    "div",
    { class: "trace" },
    t.toolName ? part("tool", t.toolName) : null,
    t.arguments ? part("arguments", t.arguments) : null,
    t.result ? part("result", t.result) : null,
    t.model ? part("model", t.model) : null,
    t.inputTokens > 0n || t.outputTokens > 0n ? part("tokens", `${t.inputTokens} in · ${t.outputTokens} out`) : null,
    t.latencyMs > 0n ? part("latency", `${t.latencyMs} ms`) : null,
  );
}

/** Renders one conversation's messages in order, each tool call or model trace under its message. */
export function renderConversation(el: HTMLElement, c: Conversation, messages: readonly ConversationMessage[], more: boolean): void {
  const meta = Object.entries(c.metadata).map(([k, v]) => h("span", { class: "tag" }, `${k}=${v}`));
  fill(
    el,
    h("div", { class: "conversation-head" }, h("h3", {}, c.title || "(untitled)"), h("span", { class: "muted" }, `${c.id} · session of every turn`), ...meta),
    ...messages.map((m) =>
      h(
        "div",
        { class: `turn ${m.role}`, "data-position": String(m.position) },
        h("div", { class: "who" }, m.name || m.role, h("span", { class: "when" }, moment(m.observedAt))),
        h("div", {}, m.content, m.trace ? traceLine(m.trace) : null),
      ),
    ),
    more ? h("p", { class: "muted" }, "Older messages are not shown.") : null,
  );
}
