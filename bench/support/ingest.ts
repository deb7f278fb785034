import { createRandom, createVocabulary, sentence, userId } from "./corpus.js";
import type { memoryClient } from "./client.js";
import { pool, since } from "./stats.js";

/**
 * Loads `users` × `perUser` synthetic memories through RememberBatch (1,000 items a call, two
 * users at a time, positions 0…perUser−1 per user): the same data for every bench at a given size.
 */
export async function ingestUsers(client: ReturnType<typeof memoryClient>, users: number, perUser: number): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  const vocabulary = createVocabulary(5000);
  const start = performance.now();
  await pool(users, 2, async (u) => {
    const random = createRandom(1000 + u);
    for (let offset = 0; offset < perUser; offset += 1000) {
      const n = Math.min(1000, perUser - offset);
      const items = Array.from({ length: n }, (_, i) => ({ scope: { user: userId(u) }, content: sentence(vocabulary, random), role: "user", traceNumber: BigInt(offset + i) }));
      await client.rememberBatch({ items });
    }
  });
  const seconds = since(start) / 1000;
  return { rows: users * perUser, seconds, rowsPerSecond: (users * perUser) / seconds };
}
