"""End-to-end tests of the Python client against a real agentmem server started here (stdlib unittest)."""

import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from agentmem import AgentMem, AgentMemError

ROOT = Path(__file__).resolve().parents[3]
WRITE = "py-write-key-0123456789ab"
ADMIN = "py-admin-key-0123456789ab"


class Server:
    """`agentmem serve` on a free loopback port over a temp directory (the built CLI, hash embedder)."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="agentmem-py-")
        self.log = open(os.path.join(self.dir, "server.log"), "w+")
        env = dict(os.environ, AGENTMEM_API_KEYS=f"{WRITE}:clinic:write,{ADMIN}:clinic:admin", AGENTMEM_LOG_LEVEL="info")
        node = os.environ.get("AGENTMEM_NODE") or shutil.which("node") or "node"
        self.proc = subprocess.Popen(
            [node, str(ROOT / "bin" / "agentmem.js"), "serve", "--data", os.path.join(self.dir, "data"), "--port", "0", "--embedder", "hash"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=str(ROOT),
        )
        self.target = self._wait_serving()

    def _wait_serving(self, seconds=120):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {Path(self.log.name).read_text()}")
            match = re.search(r'"port":(\d+).*"msg":"SERVING"', Path(self.log.name).read_text())
            if match:
                return f"127.0.0.1:{match.group(1)}"
            time.sleep(0.1)
        raise RuntimeError("server did not report SERVING")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.mem = AgentMem(cls.server.target, api_key=WRITE)
        cls.admin = AgentMem(cls.server.target, api_key=ADMIN)

    @classmethod
    def tearDownClass(cls):
        cls.mem.close()
        cls.admin.close()
        cls.server.stop()

    def test_remember_then_recall(self):
        memory_id = self.mem.remember("py_user", "I had knee surgery in March", pinned=True)
        self.assertRegex(memory_id, r"^[0-9a-f]{32}$")
        hits = self.mem.recall("py_user", "knee surgery", k=3).hits
        self.assertEqual(hits[0].id, memory_id)
        self.assertEqual(hits[0].memory, "I had knee surgery in March")

    def test_process_twice_recalls_the_first(self):
        first = self.mem.process("patient_42", "I'm worried about the surgery tomorrow", channel="web")
        self.assertIn("anxiety", list(first.context.detected_emotions))
        second = self.mem.process("patient_42", "Any advice before the surgery tomorrow?")
        recalled = "\n".join(m.text for m in second.memory.relevant_memories)
        self.assertIn("I'm worried about the surgery tomorrow", recalled)
        self.assertEqual(second.memory.interaction_count, 2)

    def test_wrong_key_is_unauthenticated(self):
        with AgentMem(self.server.target, api_key="wrong-key-0123456789abcdef") as bad:
            with self.assertRaises(AgentMemError) as caught:
                bad.recall("py_user", "anything")
        self.assertEqual(caught.exception.code, "UNAUTHENTICATED")
        self.assertEqual(caught.exception.reason, "INVALID_API_KEY")

    def test_bad_input_carries_the_reason_and_field(self):
        with self.assertRaises(AgentMemError) as caught:
            self.mem.remember("py_user", "x" * 40000)
        self.assertEqual((caught.exception.code, caught.exception.reason, caught.exception.field), ("INVALID_ARGUMENT", "LIMIT_EXCEEDED", "content"))
        with self.assertRaises(AgentMemError) as caught:
            self.mem.clear_history("patient_42")
        self.assertEqual((caught.exception.code, caught.exception.reason), ("PERMISSION_DENIED", "ROLE_TOO_LOW"))

    def test_clear_history_leaves_nothing(self):
        self.mem.remember("py_gone", "my sister visits on Sundays")
        self.mem.process("py_gone", "My sister is coming this Sunday")
        erased = self.admin.clear_history("py_gone")
        self.assertGreaterEqual(erased.memories, 2)
        self.assertEqual(list(self.mem.recall("py_gone", "sister Sundays").hits), [])
        self.assertEqual(list(self.mem.history("py_gone")), [])

    def test_add_search_and_prompt_block(self):
        self.mem.add("py_maya", [{"role": "user", "name": "Maya", "content": "Hi! I live in London and work as a nurse."}])
        moved = self.mem.add("py_maya", [{"role": "user", "name": "Maya", "content": "Big news: I just moved from London to Paris."}])
        self.assertEqual(len(moved.superseded), 1)
        hits = self.mem.search("py_maya", "Where does Maya live?").hits
        self.assertIn("Paris", hits[0].memory)
        self.assertIn("London", hits[0].history[0].text)
        block = self.mem.prompt_block("py_maya", "where does Maya live", budget_tokens=200)
        self.assertIn("[outdated as of", block.block)

    def test_docs_quick_start_runs(self):
        doc = (ROOT / "docs" / "agents.md").read_text()
        snippet = re.search(r"<!-- agents-test: python -->\n```python\n(.*?)```", doc, re.S).group(1)
        env = dict(os.environ, AGENTMEM_TARGET=self.server.target, AGENTMEM_API_KEY=ADMIN)
        out = subprocess.run(["/usr/bin/python3", "-c", snippet], env=env, capture_output=True, text=True, cwd=str(ROOT / "clients" / "python"), timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("recalled: I'm worried about the surgery tomorrow", out.stdout)
        self.assertRegex(out.stdout, r"erased \d+ memories")


if __name__ == "__main__":
    unittest.main()
