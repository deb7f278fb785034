export async function runScenarios(..._a: unknown[]): Promise<{ half: string }[]> { return []; }
export function scenarioFigures(_r: unknown[]) { return {}; }
export function scenarioFailures(_r: unknown[]): string[] { return []; }
