import { Verdict } from "../../gen/agentmem/v1/common_pb.js";
import type { CheckResponse, GetAnchorsResponse } from "../../gen/agentmem/v1/drift_service_pb.js";
import { day, fill, fixed, h } from "../dom.js";

/** `on-track`, `nudge`, `correct`, `block`. */
export function verdictName(v: Verdict): string {
  return (Verdict[v] ?? "UNSPECIFIED").toLowerCase().replace("_", "-");
}

/** Shows a session's anchors: goal, constraints and how many turns shaped the centroid. */
export function renderAnchors(el: HTMLElement, meta: HTMLElement, session: string, anchors: GetAnchorsResponse): void {
  fill(meta, `session ${session}`);
  if (!anchors.goal && anchors.constraints.length === 0) {
    return fill(el, h("p", { class: "muted" }, "No drift anchors in this session yet (set them with DriftService.Check goal/constraints)."));
  }
  fill(
    el,
    h(
      "dl",
      {},
      h("dt", {}, "goal"),
      h("dd", {}, anchors.goal || "–"),
      h("dt", {}, "constraints"),
      h("dd", {}, anchors.constraints.join(" · ") || "–"),
      h("dt", {}, "accepted turns"),
      h("dd", {}, String(anchors.acceptedTurns)),
      h("dt", {}, "updated"),
      h("dd", {}, day(anchors.updatedAt) || "–"),
    ),
  );
}

/** Shows the verdict of one scored answer. */
export function renderCheck(el: HTMLElement, check: CheckResponse): void {
  const name = verdictName(check.verdict);
  const c = check.components;
  fill(
    el,
    h(
      "div",
      { class: "message", "data-verdict": name },
      h("span", { class: `badge ${name}` }, name.replace("-", " ")),
      ` score ${fixed(check.score)}`,
      c ? ` · goal ${fixed(c.goalDistance)} · centroid ${fixed(c.centroidDistance)} · novelty ${fixed(c.novelty)}` : "",
      check.needsIntervention ? h("div", {}, `Steer back: ${check.corrective}`) : null,
    ),
  );
}
