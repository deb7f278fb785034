// Runs the CLI from the sources (via tsx), so benches need no build step.
import { main } from "../../src/cli.js";

await main(process.argv);
