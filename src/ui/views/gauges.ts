import type { GetStateResponse } from "../../gen/agentmem/v1/relational_service_pb.js";
import { day, fill, fixed, h } from "../dom.js";

const SVG = "http://www.w3.org/2000/svg";
const RADIUS = 26;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

/** The four relational scalars, how each one moves, and its colour. */
const GAUGES = [
  { name: "trust", hint: "starts 0.5 · +0.01 per interaction", color: "#3b5bdb" },
  { name: "sentiment", hint: "starts 0.5 · 6 h half-life to 0.5", color: "#2b8a3e" },
  { name: "grudge", hint: "starts 0 · 12 h half-life to 0", color: "#c92a2a" },
  { name: "familiarity", hint: "starts 0 · +0.005 per interaction", color: "#ae3ec9" },
] as const;

/** One of the four scalar names. */
export type GaugeName = (typeof GAUGES)[number]["name"];

function ring(value: number | null, color: string): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 64 64");
  const circle = (cls: string) => {
    const c = document.createElementNS(SVG, "circle");
    c.setAttribute("class", cls);
    c.setAttribute("cx", "32");
    c.setAttribute("cy", "32");
    c.setAttribute("r", String(RADIUS));
    return c;
  };
  const fillCircle = circle("fill");
  const shown = value === null ? 0 : Math.max(0, Math.min(1, value));
  fillCircle.setAttribute("stroke", color);
  fillCircle.setAttribute("stroke-dasharray", `${shown * CIRCUMFERENCE} ${CIRCUMFERENCE}`);
  // A circle's stroke starts at 3 o'clock: turn it to start at 12 and run clockwise.
  fillCircle.setAttribute("transform", "rotate(-90 32 32)");
  if (shown === 0) fillCircle.setAttribute("stroke-opacity", "0");
  svg.append(circle("track"), fillCircle);
  return svg;
}

/** Draws the four gauges; `state` null shows them empty (no state yet, or the RPC is missing). */
export function renderGauges(el: HTMLElement, meta: HTMLElement, state: GetStateResponse | null): void {
  fill(
    el,
    ...GAUGES.map((g) => {
      const value = state?.user ? state.user[g.name] : null;
      return h(
        "div",
        { class: value === null ? "gauge unknown" : "gauge", "data-gauge": g.name, "data-value": value === null ? "" : String(value) },
        ring(value, g.color),
        h("div", {}, h("div", { class: "name" }, g.name), h("div", { class: "value" }, value === null ? "–" : fixed(value)), h("div", { class: "hint" }, g.hint)),
      );
    }),
  );
  if (!state) return fill(meta, "");
  const since = day(state.knownSince);
  fill(meta, `${state.interactionCount} interactions${since ? ` · known since ${since}` : ""}${state.lastSeen ? ` · last seen ${day(state.lastSeen)}` : ""}`);
}
