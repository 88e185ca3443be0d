"""Facts about Triton's ModelConfig that need no protobuf import (kept in sync by a test)."""

from __future__ import annotations

# The serving-model kind of a workload read from a model configuration (not a deployment).
MODEL_CONFIG_KIND = "TritonModelConfig"

# Top-level fields of inference.ModelConfig (model_config.proto).
MODEL_CONFIG_FIELDS = frozenset(
    {
        "name",
        "platform",
        "backend",
        "runtime",
        "version_policy",
        "max_batch_size",
        "input",
        "output",
        "batch_input",
        "batch_output",
        "optimization",
        "dynamic_batching",
        "sequence_batching",
        "ensemble_scheduling",
        "instance_group",
        "default_model_filename",
        "cc_model_filenames",
        "metric_tags",
        "parameters",
        "model_warmup",
        "model_operations",
        "model_transaction_policy",
        "model_repository_agents",
        "response_cache",
        "model_metrics",
    }
)

# Fields whose presence marks a mapping as a model configuration rather than any document
# that happens to have a "name" key.
CHARACTERISTIC_FIELDS = frozenset(
    {
        "platform",
        "backend",
        "max_batch_size",
        "instance_group",
        "dynamic_batching",
        "sequence_batching",
        "ensemble_scheduling",
        "version_policy",
        "model_transaction_policy",
    }
)

# backend / platform / default_model_filename → backend kind, as Triton resolves them
# (core:src/model_config_utils.cc AutoCompleteBackendFields and GetBackendType).
BACKENDS = {
    "tensorrt": "tensorrt",
    "onnxruntime": "onnxruntime",
    "python": "python",
    "vllm": "vllm",
    "tensorrtllm": "tensorrtllm",
    "pytorch": "pytorch",
    "tensorflow": "tensorflow",
    "openvino": "openvino",
    "dali": "dali",
    "fil": "fil",
}
PLATFORMS = {
    "tensorrt_plan": "tensorrt",
    "onnxruntime_onnx": "onnxruntime",
    "pytorch_libtorch": "pytorch",
    "torch_aoti": "pytorch",
    "tensorflow_savedmodel": "tensorflow",
    "tensorflow_graphdef": "tensorflow",
    "ensemble": "ensemble",
}
MODEL_FILENAMES = {
    "model.plan": "tensorrt",
    "model.onnx": "onnxruntime",
    "model.pt": "pytorch",
    "model.savedmodel": "tensorflow",
    "model.graphdef": "tensorflow",
    "model.xml": "openvino",
}
