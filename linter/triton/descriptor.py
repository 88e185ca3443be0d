"""The ``inference.ModelConfig`` message definition, built at run time without protoc.

Why this way: Triton's ``model_config.proto`` is not published on PyPI by itself. The one
package that ships it compiled, ``tritonclient``, pulls in grpcio and numpy, pins
``protobuf<7`` and cannot be imported without its gRPC client. Instead the repository
ships the compiled definition as data: ``schemas/triton-model-config.descriptor.json``
holds the ``FileDescriptorProto`` of ``model_config.proto`` in protobuf's JSON form,
taken from the ``model_config_pb2`` module of a ``tritonclient`` wheel (the version is
recorded in the file). Loading it needs only ``descriptor_pool`` and
``message_factory`` and takes a few milliseconds; no code is generated.

To refresh it from a newer ``tritonclient`` wheel (a maintainer's task, never at run time)::

    python -m linter.triton.descriptor tritonclient-X.Y.Z-py3-none-any.whl \\
        schemas/triton-model-config.descriptor.json
"""

from __future__ import annotations

import ast
import functools
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

from linter import _resources

DESCRIPTOR_FILE = "triton-model-config.descriptor.json"
MESSAGE = "inference.ModelConfig"
_PB2 = "tritonclient/grpc/model_config_pb2.py"


@functools.cache
def model_config_class() -> Any:
    """The generated message class for ``inference.ModelConfig``."""
    from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

    shipped = json.loads(_resources.schema_file(DESCRIPTOR_FILE).read_text(encoding="utf-8"))
    proto = json_format.ParseDict(shipped["file_descriptor"], descriptor_pb2.FileDescriptorProto())
    # A private pool: never collide with another model_config.proto a user may import.
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(MESSAGE))


def model_config_descriptor() -> Any:
    return model_config_class().DESCRIPTOR


def descriptor_document(wheel: Path) -> str:
    """The shipped descriptor file's text, built from a ``tritonclient`` wheel."""
    from google.protobuf import descriptor_pb2, json_format

    with zipfile.ZipFile(wheel) as archive:
        source = archive.read(_PB2).decode("utf-8")
    serialized = _serialized_file(source)
    proto = descriptor_pb2.FileDescriptorProto.FromString(serialized)
    document = {
        "description": "FileDescriptorProto of Triton's model_config.proto "
        "(triton-inference-server/common protobuf/model_config.proto), "
        "read by linter/triton/descriptor.py",
        "source": f"{wheel.name}:{_PB2}",
        "license": "BSD-3-Clause; Copyright NVIDIA CORPORATION & AFFILIATES",
        "file_descriptor": json_format.MessageToDict(proto, preserving_proto_field_name=True),
    }
    return json.dumps(document, indent=1, sort_keys=False) + "\n"


def _serialized_file(source: str) -> bytes:
    # Read the bytes literal handed to AddSerializedFile without executing the module.
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "AddSerializedFile"
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, bytes)
        ):
            return node.args[0].value
    raise ValueError(f"no AddSerializedFile(...) call in {_PB2}")


if __name__ == "__main__":  # pragma: no cover - maintainer tool
    Path(sys.argv[2]).write_text(descriptor_document(Path(sys.argv[1])), encoding="utf-8")
