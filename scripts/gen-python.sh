#!/usr/bin/env bash
# Generates the Python gRPC stubs of the agentmem API into clients/python (or the directory given):
# agentmem/v1/*_pb2.py and *_pb2_grpc.py. Needs Debian's protobuf-compiler, protobuf-compiler-grpc
# and libprotobuf-dev (for google/protobuf/*.proto). The output is committed; a test checks it is current.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-clients/python}"
mkdir -p "$out"
protoc -I proto -I /usr/include \
  --python_out="$out" \
  --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin --grpc_python_out="$out" \
  proto/agentmem/v1/*.proto
