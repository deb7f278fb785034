import { setFlagsFromString } from "node:v8";

/**
 * V8 settings for a long-running server, applied before it starts serving.
 *
 * Allocation-site pretenuring: when objects from one allocation site survive scavenges often, V8
 * starts allocating everything from that site straight in old space — for good, since old-space
 * allocations give it no further feedback. Here the record decoders are shared by paths that keep
 * their results a while (a `RememberBatch` holds 1,000 records across commits) and by recall, which
 * drops ~100 decoded candidates per call within milliseconds. Once ingest had tenured those sites,
 * a recall's garbage went to old space: over 800 recalls 178 MB was reclaimed only by major GCs
 * (18.7 MB without pretenuring), major GCs came every few seconds with incremental steps of up to
 * 8 ms inside requests, and scavenges took 3.6 ms instead of 2.4. Without pretenuring, objects
 * that do live long are copied once more on their way to old space, which costs ingest little
 * (bench:ingest went from 7,189–7,523 to 8,903 rows/s, the other changes of the day included;
 * 8,364 with the growing factor below as well).
 *
 * Heap growing factor 1.5: the hot rows are ~200 MB of live objects, and V8 started the next full
 * collection after only ~35 MB more, so under load one came every ~15 s, each pausing 13–50 ms
 * plus incremental steps of up to 12–24 ms inside requests. With old space allowed to grow by half
 * the live size first they come about a third as often; the end-of-bench RSS rose ~30–50 MiB
 * (821–841 MiB at 100k memories plus 10k writes).
 */
export function tuneHeap(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
  setFlagsFromString("--heap-growing-percent=50");
}
