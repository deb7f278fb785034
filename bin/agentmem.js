#!/usr/bin/env node
process.env.LANCEDB_LOG ??= "error";
const { main } = await import("../dist/src/cli.js");
await main(process.argv);
