"""Python client for agentmem: memory for AI agents over gRPC.

    from agentmem import AgentMem
    mem = AgentMem("127.0.0.1:8080", api_key="...")
    reply = mem.process("patient_42", "I'm worried about the surgery tomorrow")
"""

from .client import AgentMem
from .errors import AgentMemError

__all__ = ["AgentMem", "AgentMemError"]
