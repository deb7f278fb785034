import type { Turn } from "../../gen/agentmem/v1/memory_service_pb.js";
import { fill, h, moment } from "../dom.js";

/** Renders raw transcript turns, oldest first. */
export function renderHistory(el: HTMLElement, meta: HTMLElement, turns: readonly Turn[], total: bigint): void {
  fill(meta, total > BigInt(turns.length) ? `last ${turns.length} of ${total} turns` : `${turns.length} turns`);
  if (turns.length === 0) return fill(el, h("p", { class: "muted" }, "No raw turns stored for this user."));
  fill(
    el,
    ...turns.map((t) =>
      h(
        "div",
        { class: `turn ${t.role}` },
        h("div", { class: "who" }, t.name || t.role || "user", h("span", { class: "when" }, moment(t.observedAt))),
        h("div", {}, t.content),
      ),
    ),
  );
}
