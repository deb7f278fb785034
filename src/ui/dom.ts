import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";

/** A child accepted by {@link h}: nodes, text, or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Creates an element with attributes (`class`, `data-*`, `title`, …) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) el.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Looks up an element the page must have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

/** Replaces an element's children. */
export function fill(el: HTMLElement, ...children: Child[]): void {
  el.replaceChildren();
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
}

/** A short message box (muted, or red for errors). */
export function message(text: string, error = false): HTMLElement {
  return h("div", { class: error ? "message error" : "message" }, text);
}

/** `Jan 14, 2025` for a timestamp, or an empty string when unset. */
export function day(t: Timestamp | undefined): string {
  if (!t) return "";
  return timestampDate(t).toLocaleDateString("en-US", { year: "numeric", month: "short", day: "2-digit", timeZone: "UTC" });
}

/** `Jan 14, 2025, 09:30` for a timestamp, or an empty string when unset. */
export function moment(t: Timestamp | undefined): string {
  if (!t) return "";
  return timestampDate(t).toLocaleString("en-US", {
    year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC",
  });
}

/** A number in [0,1] with two decimals. */
export function fixed(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "–";
}
