import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/**
 * Every file below `dir` whose raw bytes contain `needle` (as UTF-8), relative to `dir`.
 * `skip` leaves out paths (relative) for which it returns true.
 */
export async function filesContaining(dir: string, needle: string, skip: (path: string) => boolean = () => false): Promise<string[]> {
  const bytes = Buffer.from(needle, "utf8");
  const found: string[] = [];
  async function walk(d: string): Promise<void> {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (skip(relative(dir, path))) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && (await readFile(path)).includes(bytes)) found.push(relative(dir, path));
    }
  }
  await walk(dir);
  return found.sort();
}
