/**
 * Times recalls through the API from a worker thread: its own V8 heap, so the measuring client is
 * not paused by the garbage of the raw-LanceDB baseline running in the main thread (Arrow results
 * and engine buffers made the bench process run a major GC every ~0.5 s, 3–10 ms each, which
 * landed in whichever API call was in flight). What remains in an API figure is the call itself:
 * a Connect client over one HTTP/2 connection, as an application would hold it.
 */
import { appendFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { memoryClient } from "./client.js";
import { pool, since } from "./stats.js";

/** One batch of recalls to time. */
export interface TimerRequest {
  url: string;
  work: { user: string; text: string }[];
  concurrency: number;
  k: number;
}

const clients = new Map<string, ReturnType<typeof memoryClient>>();

parentPort?.on("message", async (req: TimerRequest) => {
  let client = clients.get(req.url);
  if (!client) clients.set(req.url, (client = memoryClient(req.url)));
  const samples: number[] = [];
  // BENCH_SAMPLES_FILE=path appends each call's start (epoch ms), duration and user, to line up
  // slow calls with the server's log (BENCH_SERVER_LOG) and GC timeline.
  const tracing = process.env.BENCH_SAMPLES_FILE;
  const trace: string[] = [];
  try {
    await pool(req.work.length, req.concurrency, async (i) => {
      const t = performance.now();
      await client.recall({ scope: { user: req.work[i].user }, query: req.work[i].text, k: req.k });
      samples.push(since(t));
      if (tracing) trace.push(`${(performance.timeOrigin + t).toFixed(1)} ${samples[samples.length - 1].toFixed(2)} ${req.work[i].user} c${req.concurrency}`);
    });
    if (tracing) appendFileSync(tracing, `${trace.join("\n")}\n`);
    parentPort?.postMessage({ samples });
  } catch (error) {
    parentPort?.postMessage({ error: String(error) });
  }
});
