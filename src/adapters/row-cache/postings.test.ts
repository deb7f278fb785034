import { describe, expect, it } from "vitest";
import { Postings } from "./postings.js";

/** The pairs of a term as a slot → tf map, read through the pool bounds. */
function pairsOf(p: Postings, term: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = p.begin(term); i < p.end(term); i += 2) out.set(p.data[i], p.data[i + 1]);
  return out;
}

describe("Postings", () => {
  it("agrees with a plain map through adds, removals, renumbering, region moves and compactions", () => {
    const p = new Postings();
    const model: Map<number, number>[] = [];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let step = 0; step < 20_000; step++) {
      const roll = random();
      if (model.length < 5 || roll < 0.05) {
        expect(p.addTerm()).toBe(model.length);
        model.push(new Map());
        continue;
      }
      const term = Math.floor(random() * model.length);
      const pairs = model[term];
      if (roll < 0.7 || pairs.size === 0) {
        const slot = 1000 + step;
        const tf = 1 + Math.floor(random() * 5);
        p.add(term, slot, tf);
        pairs.set(slot, tf);
      } else if (roll < 0.9) {
        const slot = [...pairs.keys()][Math.floor(random() * pairs.size)];
        p.remove(term, slot);
        pairs.delete(slot);
      } else {
        const slot = [...pairs.keys()][Math.floor(random() * pairs.size)];
        const to = -step;
        p.renumber(term, slot, to);
        pairs.set(to, pairs.get(slot)!);
        pairs.delete(slot);
      }
    }
    expect(p.size).toBe(model.length);
    for (let t = 0; t < model.length; t++) {
      expect(p.df(t)).toBe(model[t].size);
      expect(pairsOf(p, t)).toEqual(model[t]);
    }
  });

  it("refuses to remove a slot the term does not hold", () => {
    const p = new Postings();
    const t = p.addTerm();
    p.add(t, 3, 1);
    expect(() => p.remove(t, 4)).toThrow(/slot 4 missing/);
  });
});
