import { type Dirent, constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";

/** A table's subdirectories that a commit writes into (data files, manifests, transactions, deletions, indexes). */
const PARTS = ["data", "_versions", "_transactions", "_deletions", "_indices"];

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

async function fsyncPath(path: string, directory: boolean): Promise<void> {
  let handle;
  try {
    handle = await open(path, directory ? constants.O_RDONLY | constants.O_DIRECTORY : constants.O_RDONLY);
  } catch {
    return; // removed meanwhile (cleanup of old versions): nothing to make durable
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes a local LanceDB table's committed files durable: LanceDB writes them without fsync, so
 * after a commit every file not synced before (data file, manifest, transaction, deletion and
 * index files) is fsynced, then each directory that gained one, then the table directory.
 * Names already synced are remembered, so a commit costs a directory listing plus its own files.
 */
export class TableFsync {
  private readonly synced = new Set<string>();
  private first = true;

  constructor(private readonly tableDir: string) {}

  /** Fsyncs what the last commits wrote. */
  async sync(): Promise<void> {
    const seen = new Set<string>();
    const dirty = new Set<string>();
    const walk = async (dir: string, depth: number): Promise<void> => {
      const files: string[] = [];
      for (const e of await entries(dir)) {
        const path = join(dir, e.name);
        if (e.isDirectory()) {
          if (depth < 2) await walk(path, depth + 1);
          if (!this.synced.has(path)) dirty.add(dir);
          seen.add(path);
        } else {
          seen.add(path);
          if (!this.synced.has(path)) files.push(path);
        }
      }
      if (files.length > 0) dirty.add(dir);
      await Promise.all(files.map((f) => fsyncPath(f, false)));
    };
    for (const part of PARTS) await walk(join(this.tableDir, part), 1);
    for (const dir of dirty) await fsyncPath(dir, true);
    await fsyncPath(this.tableDir, true);
    // The first time, also the entry naming the table in the data directory.
    if (this.first) await fsyncPath(join(this.tableDir, ".."), true);
    this.first = false;
    this.synced.clear();
    for (const p of seen) this.synced.add(p);
  }
}
