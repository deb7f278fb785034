"""A thin, synchronous client over the generated gRPC stubs: one method per call, one error type."""

from typing import Iterable, Mapping, Optional, Sequence, Union

import grpc

from .errors import AgentMemError
from .v1 import common_pb2, memory_service_pb2, memory_service_pb2_grpc
from .v1 import privacy_service_pb2, privacy_service_pb2_grpc
from .v1 import relational_service_pb2, relational_service_pb2_grpc

Message = Union[str, Mapping[str, str]]


class AgentMem:
    """Client for an agentmem server.

    ``target`` is ``host:port`` (or ``http://host:port``; ``https://`` uses TLS). ``api_key`` is sent
    as ``Authorization: Bearer …`` (omit it in dev mode). Scope keywords (``namespace``, ``agent``,
    ``session``) narrow every call that takes them. Every failure raises :class:`AgentMemError`.
    """

    def __init__(self, target: str, api_key: Optional[str] = None, *, timeout: float = 30.0):
        secure = target.startswith("https://")
        address = target.split("://", 1)[-1].rstrip("/")
        self._channel = grpc.secure_channel(address, grpc.ssl_channel_credentials()) if secure else grpc.insecure_channel(address)
        self._metadata = (("authorization", f"Bearer {api_key}"),) if api_key else ()
        self._timeout = timeout
        self.memory = memory_service_pb2_grpc.MemoryServiceStub(self._channel)
        self.relational = relational_service_pb2_grpc.RelationalServiceStub(self._channel)
        self.privacy = privacy_service_pb2_grpc.PrivacyServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "AgentMem":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _call(self, method, request):
        try:
            return method(request, metadata=self._metadata, timeout=self._timeout)
        except grpc.RpcError as error:
            raise AgentMemError.from_rpc_error(error) from None

    @staticmethod
    def _scope(user_id: str, namespace: str = "", agent: str = "", session: str = "") -> common_pb2.Scope:
        if not isinstance(user_id, str) or user_id == "":
            raise AgentMemError("INVALID_ARGUMENT", "user_id must be a non-empty string", "INVALID_SCOPE", "scope.user")
        return common_pb2.Scope(user=user_id, namespace=namespace, agent=agent, session=session)

    def process(self, user_id: str, message: str, channel: Optional[str] = None, **scope) -> relational_service_pb2.ProcessResponse:
        """One chat turn: detect emotions, recall, update the relationship, reply (with a model), store."""
        request = relational_service_pb2.ProcessRequest(scope=self._scope(user_id, **scope), message=message, channel=channel or "")
        return self._call(self.relational.Process, request)

    def clear_history(self, user_id: str) -> privacy_service_pb2.EraseResponse:
        """Right to erasure: everything stored about the end-user (admin key)."""
        self._scope(user_id)
        return self._call(self.privacy.Erase, privacy_service_pb2.EraseRequest(external_id=user_id))

    def remember(
        self,
        user_id: str,
        text: str,
        *,
        role: str = "",
        fact_type: str = "",
        pinned: bool = False,
        tags: Optional[Mapping[str, str]] = None,
        channel: str = "",
        **scope,
    ) -> str:
        """Stores one turn verbatim; returns its memory id (the same text again updates, never duplicates)."""
        kind = common_pb2.FactType.Value(f"FACT_TYPE_{fact_type.upper()}") if fact_type else 0
        request = memory_service_pb2.RememberRequest(
            scope=self._scope(user_id, **scope), content=text, role=role, fact_type=kind, pinned=pinned, tags=dict(tags or {}), channel=channel
        )
        return self._call(self.memory.Remember, request).memory_id

    def recall(self, user_id: str, query: str, k: int = 0, *, include_history: bool = False, **scope) -> memory_service_pb2.RecallResponse:
        """Hybrid recall (meaning and words) over the end-user's memories; ``k`` defaults to 10."""
        request = memory_service_pb2.RecallRequest(scope=self._scope(user_id, **scope), query=query, k=k, include_history=include_history)
        return self._call(self.memory.Recall, request)

    def add(self, user_id: str, messages: Iterable[Message], **scope) -> memory_service_pb2.AddResponse:
        """The fact write path: extracts facts from messages (strings are user turns), closing the ones they replace."""
        turns = [
            memory_service_pb2.Message(role="user", content=m) if isinstance(m, str) else memory_service_pb2.Message(**dict(m))
            for m in messages
        ]
        return self._call(self.memory.Add, memory_service_pb2.AddRequest(scope=self._scope(user_id, **scope), messages=turns))

    def search(self, user_id: str, query: str, k: int = 0, **scope) -> memory_service_pb2.SearchResponse:
        """The fact read path: open facts for a question, each with the facts it replaced."""
        return self._call(self.memory.Search, memory_service_pb2.SearchRequest(scope=self._scope(user_id, **scope), query=query, k=k))

    def prompt_block(self, user_id: str, query: str, budget_tokens: int = 0, **scope) -> memory_service_pb2.PromptBlockResponse:
        """A dated memory block for a prompt, within ``budget_tokens`` (default 500)."""
        request = memory_service_pb2.PromptBlockRequest(scope=self._scope(user_id, **scope), query=query, budget_tokens=budget_tokens)
        return self._call(self.memory.PromptBlock, request)

    def history(self, user_id: str, size: int = 0, **scope) -> Sequence[memory_service_pb2.Turn]:
        """The raw transcript of the end-user, oldest first."""
        return self._call(self.memory.History, memory_service_pb2.HistoryRequest(scope=self._scope(user_id, **scope), size=size)).turns
