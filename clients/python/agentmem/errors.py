"""One error type for every failed call: the gRPC code and the server's ErrorInfo reason."""

from typing import Optional

import grpc
from google.protobuf import any_pb2

_STATUS_DETAILS = "grpc-status-details-bin"
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def _fields(data: bytes):
    """Yields (field number, value) of a protobuf message: varints as int, length-delimited as bytes."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            size, i = _varint(data, i)
            value, i = data[i : i + size], i + size
        elif wire == 1:
            value, i = data[i : i + 8], i + 8
        elif wire == 5:
            value, i = data[i : i + 4], i + 4
        else:
            return
        yield number, value


def _varint(data: bytes, i: int):
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def _first_string(message: bytes, number: int) -> str:
    for n, v in _fields(message):
        if n == number and isinstance(v, bytes):
            return v.decode("utf-8", "replace")
    return ""


class AgentMemError(Exception):
    """A call the server refused or could not answer.

    ``code`` is the gRPC status name (``"UNAUTHENTICATED"``, ``"INVALID_ARGUMENT"``, …), ``reason``
    the server's ErrorInfo reason (``"INVALID_API_KEY"``, ``"LIMIT_EXCEEDED"``, …; empty when the
    server sent none), ``field`` the offending request field when there is one.
    """

    def __init__(self, code: str, message: str, reason: str = "", field: str = ""):
        super().__init__(f"{code}{' ' + reason if reason else ''}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "AgentMemError":
        """Reads code, message and the google.rpc.Status details (ErrorInfo, BadRequest) of a gRPC error."""
        code: Optional[grpc.StatusCode] = error.code() if hasattr(error, "code") else None
        message = error.details() if hasattr(error, "details") else str(error)
        reason = field = ""
        for key, value in (error.trailing_metadata() or ()) if hasattr(error, "trailing_metadata") else ():
            if key != _STATUS_DETAILS:
                continue
            # google.rpc.Status: 1 code, 2 message, 3 repeated Any details.
            for number, detail in _fields(value):
                if number != 3:
                    continue
                anything = any_pb2.Any.FromString(detail)
                if anything.type_url == _ERROR_INFO:
                    reason = _first_string(anything.value, 1)
                elif anything.type_url == _BAD_REQUEST:
                    violation = next((v for n, v in _fields(anything.value) if n == 1), b"")
                    field = _first_string(violation, 1)
        return cls(code.name if code else "UNKNOWN", message or "", reason, field)
