import type { Memory } from "../../gen/agentmem/v1/common_pb.js";
import { day, fill, h } from "../dom.js";
import { factTypeName } from "./explorer.js";

const ms = (m: Memory): number => Number(m.eventDate?.seconds ?? m.validFrom?.seconds ?? m.createdAt?.seconds ?? 0n);

/**
 * Groups memories into supersede chains, oldest first within a chain: a row starts a chain when
 * no other row points at it through `superseded_by`.
 */
export function supersedeChains(memories: readonly Memory[]): Memory[][] {
  const byId = new Map(memories.map((m) => [m.id, m]));
  const replaced = new Set(memories.map((m) => m.supersededBy).filter((id) => id !== "" && byId.has(id)));
  const placed = new Set<string>();
  const chains: Memory[][] = [];
  const follow = (head: Memory): void => {
    const chain: Memory[] = [];
    for (let m: Memory | undefined = head; m && !placed.has(m.id); m = byId.get(m.supersededBy)) {
      chain.push(m);
      placed.add(m.id);
    }
    if (chain.length > 0) chains.push(chain);
  };
  for (const m of memories) if (!replaced.has(m.id)) follow(m);
  // Rows only reachable through a loop of pointers (never written, but never hidden either).
  for (const m of memories) if (!placed.has(m.id)) follow(m);
  return chains.sort((a, b) => ms(a[a.length - 1]) - ms(b[b.length - 1]));
}

function factRow(m: Memory, successor: Memory | undefined): HTMLElement {
  const closed = m.validTo !== undefined;
  return h(
    "div",
    { class: closed ? "fact outdated" : "fact", "data-fact": m.id, "data-outdated": closed ? "true" : "false" },
    h("span", { class: "date" }, `(${day(m.eventDate ?? m.validFrom)}) `),
    h("span", { class: "text" }, m.text),
    closed ? h("span", { class: "flag" }, `outdated as of ${day(m.validTo)}`) : null,
    h("span", { class: "muted" }, ` · ${factTypeName(m.factType)}${m.pinned ? " · pinned" : ""}`),
    successor ? h("div", { class: "arrow" }, "↓ replaced by") : null,
  );
}

/** Renders the user's facts as a timeline of supersede chains (closed rows shown as outdated). */
export function renderTimeline(el: HTMLElement, meta: HTMLElement, memories: readonly Memory[], more: boolean): void {
  const closed = memories.filter((m) => m.validTo !== undefined).length;
  fill(meta, `${memories.length}${more ? "+" : ""} memories · ${closed} outdated`);
  if (memories.length === 0) return fill(el, h("p", { class: "muted" }, "No memories stored for this user."));
  fill(
    el,
    ...supersedeChains(memories).map((chain) =>
      h("div", { class: chain.length > 1 ? "chain" : "chain single" }, ...chain.map((m, i) => factRow(m, chain[i + 1]))),
    ),
  );
}
