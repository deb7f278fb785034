import { describe, expect, it } from "vitest";
import { floorScale, minMax, rankScale } from "./channel-scaling.js";

describe("channel scaling", () => {
  it("min-max stretches any spread to 0..1", () => {
    expect(minMax([2, 4, 6])).toEqual([0, 0.5, 1]);
    expect(minMax([0.146, 0.127])).toEqual([1, 0]);
  });

  it("a floor keeps a tiny spread small and leaves a wide one as min-max", () => {
    const [cat, home] = floorScale([0.146, 0.127], 0.25);
    expect(cat - home).toBeCloseTo(0.076, 3);
    expect(floorScale([2, 4, 6], 1)).toEqual([0, 0.5, 1]);
    expect(floorScale([3, 3], 1)).toEqual([1, 1]);
    expect(floorScale([0, 0], 1)).toEqual([0, 0]);
  });

  it("rank scaling ignores magnitudes, shares ranks on ties and gives no signal 0", () => {
    expect(rankScale([0.9, 0.1, 0.1, 0])).toEqual([1, 60 / 61, 60 / 61, 0]);
  });
});
