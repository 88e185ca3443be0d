"""Triton Inference Server model configurations: ``config.pbtxt`` and its JSON form.

``pbtxt`` parses the protobuf text format (protobuf is imported only when a ``.pbtxt``
is read); ``extract`` turns every model configuration into a workload of the serving
model. Everything else here is plain Python so that a run without Triton inputs stays fast.
"""
