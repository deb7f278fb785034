// Bundles the web page (src/ui) into dist/ui with esbuild: app.js + index.html + style.css.
// Run by `npm run build` (and `prepare`, so `npm ci` leaves a ready page); ~0.1 s.
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Builds the page into `outdir` (default `dist/ui`).
 * @param {string} [outdir]
 * @returns {Promise<string>} the output directory
 */
export async function buildUi(outdir = join(root, "dist", "ui")) {
  const src = join(root, "src", "ui");
  await mkdir(outdir, { recursive: true });
  await build({
    entryPoints: [join(src, "main.ts")],
    outfile: join(outdir, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    minify: true,
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
  });
  await Promise.all(["index.html", "style.css"].map((f) => copyFile(join(src, f), join(outdir, f))));
  return outdir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await buildUi(process.argv[2]);
  process.stdout.write(`web page built in ${out}\n`);
}
