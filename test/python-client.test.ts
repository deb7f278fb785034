import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const CLIENT = join(ROOT, "clients", "python");
const PYTHON = "/usr/bin/python3";
// Debian's python3-grpcio / python3-protobuf (see .ci/run); the pyenv python on PATH does not see them.
const hasGrpc = existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import grpc, google.protobuf"]).status === 0;
const hasProtoc = spawnSync("protoc", ["--version"]).status === 0 && existsSync("/usr/bin/grpc_python_plugin") && existsSync("/usr/include/google/protobuf/timestamp.proto");
const hasVenv = hasGrpc && spawnSync(PYTHON, ["-c", "import setuptools, venv, pip"]).status === 0;
const SKIP_GRPC = "skipped: /usr/bin/python3 lacks grpc (apt-get install python3-grpcio python3-protobuf)";
const SKIP_PROTOC = "skipped: protoc / grpc_python_plugin missing (apt-get install protobuf-compiler protobuf-compiler-grpc libprotobuf-dev)";

function run(file: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("Python client (clients/python)", () => {
  it.skipIf(!hasGrpc)(`unittest against a real server passes${hasGrpc ? "" : ` (${SKIP_GRPC})`}`, { timeout: 600_000 }, async () => {
    const r = await run(PYTHON, ["-m", "unittest", "discover", "-s", "tests", "-v"], { cwd: CLIENT, env: { PYTHONPATH: CLIENT, AGENTMEM_NODE: process.execPath } });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/Ran [1-9]\d* tests/);
    expect(r.out).not.toMatch(/skipped/);
  });

  it.skipIf(!hasVenv)(`pip install ./clients/python gives an importable package${hasVenv ? "" : " (skipped: no venv/pip/setuptools for /usr/bin/python3)"}`, { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentmem-pip-"));
    try {
      // A copy, so the build leaves nothing in the repo; offline: the system's setuptools, grpcio and protobuf.
      await cp(CLIENT, join(dir, "src"), { recursive: true });
      // Without ensurepip (slow): Debian's pip is visible through the system site packages.
      expect((await run(PYTHON, ["-m", "venv", "--system-site-packages", "--without-pip", join(dir, "venv")], { cwd: dir })).code).toBe(0);
      const pip = await run(join(dir, "venv", "bin", "python"), ["-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", join(dir, "src")], { cwd: dir });
      expect(pip.code, pip.out).toBe(0);
      const probe = "import agentmem, agentmem.v1.memory_service_pb2 as m; print(agentmem.__file__); print(m.RecallRequest(query='q').query)";
      const r = await run(join(dir, "venv", "bin", "python"), ["-c", probe], { cwd: dir, env: { PYTHONPATH: "" } });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(join(dir, "venv"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!hasProtoc)(`the committed stubs are what scripts/gen-python.sh generates${hasProtoc ? "" : ` (${SKIP_PROTOC})`}`, async () => {
    const out = await mkdtemp(join(tmpdir(), "agentmem-pygen-"));
    try {
      const r = await run(join(ROOT, "scripts", "gen-python.sh"), [out], { cwd: ROOT });
      expect(r.code, r.out).toBe(0);
      const generated = readdirSync(join(out, "agentmem", "v1")).sort();
      const committed = readdirSync(join(CLIENT, "agentmem", "v1")).filter((f) => f.endsWith(".py") && f !== "__init__.py").sort();
      expect(committed, "run scripts/gen-python.sh and commit clients/python").toEqual(generated);
      for (const f of generated) {
        expect(readFileSync(join(CLIENT, "agentmem", "v1", f), "utf8"), `${f} is stale: run scripts/gen-python.sh`).toBe(readFileSync(join(out, "agentmem", "v1", f), "utf8"));
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
