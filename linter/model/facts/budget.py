"""One device's memory as the capacity figures divide it (``capacity.py``): the weights,
the allowance for activations and CUDA graphs, the KV cache that fits, what lies outside
the server's memory fraction and what is left free; beside it the KV cache that
``max_model_len`` × ``max_num_seqs`` would need. ``show`` prints it and the HTML report
draws it, from the same figures the kv rules quote."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from linter.lightclass import frozen

if TYPE_CHECKING:
    from linter.model.records.workload import Workload

# The setting each server's memory fraction is written as.
FRACTION_SETTING = {
    "vllm": "gpu_memory_utilization",
    "sglang": "mem_fraction_static",
    "tgi": "memory fraction",  # cuda_memory_fraction × TGI's wiggle room
}
LENGTH_SETTING = {"vllm": "max_model_len", "sglang": "context_length", "tgi": "max_total_tokens"}
SEQUENCES_SETTING = {"vllm": "max_num_seqs", "sglang": "max_running_requests"}


@frozen
class MemoryBudget:
    """The memory of one GPU of a workload, in bytes."""

    server: str
    gpu: str | None  # the product, when the input named it
    device_bytes: int
    fraction: float | None  # None: read from a Secret, never shown (``show``)
    budget_bytes: int  # device × fraction: what the server takes
    weight_bytes: int
    # Activations and CUDA graphs: inside the budget for vLLM and TGI; SGLang keeps them
    # outside mem_fraction_static (0 here, they are in ``outside_bytes``).
    overhead_bytes: int
    kv_budget_bytes: int  # the KV cache that fits
    kv_tokens: int
    kv_bytes_per_token: int
    max_model_len: int | None = None
    max_num_seqs: int | None = None
    assumptions: tuple[str, ...] = ()

    @property
    def outside_bytes(self) -> int:
        """What the memory fraction leaves out of the server's budget."""
        return max(0, self.device_bytes - self.budget_bytes)

    @property
    def free_bytes(self) -> int:
        """What the budget holds beyond weights, allowance and KV cache (a KV cache given
        in bytes smaller than what is left)."""
        return max(
            0, self.budget_bytes - self.weight_bytes - self.overhead_bytes - self.kv_budget_bytes
        )

    @property
    def free_after_weights_bytes(self) -> int:
        """The budget less the weights: the ``free_after_weights_bytes_per_gpu`` of the
        rules (negative when the weights do not fit)."""
        return self.budget_bytes - self.weight_bytes

    @property
    def kv_bytes_one_sequence(self) -> int | None:
        if self.max_model_len is None:
            return None
        return self.max_model_len * self.kv_bytes_per_token

    @property
    def kv_bytes_all_sequences(self) -> int | None:
        if self.max_model_len is None or self.max_num_seqs is None:
            return None
        return self.max_model_len * self.max_num_seqs * self.kv_bytes_per_token

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "gpu": self.gpu,
            "deviceBytes": self.device_bytes,
            "fraction": self.fraction,
            "budgetBytes": self.budget_bytes,
            "weightBytes": self.weight_bytes,
            "overheadBytes": self.overhead_bytes,
            "kvBudgetBytes": self.kv_budget_bytes,
            "kvTokens": self.kv_tokens,
            "kvBytesPerToken": self.kv_bytes_per_token,
            "outsideBytes": self.outside_bytes,
            "freeBytes": self.free_bytes,
            "maxModelLen": self.max_model_len,
            "maxNumSeqs": self.max_num_seqs,
            "kvBytesNeeded": self.kv_bytes_all_sequences,
            "assumptions": list(self.assumptions),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MemoryBudget:
        """The inverse of ``to_json`` (the HTML form of ``show`` draws what it printed)."""
        return cls(
            server=data["server"],
            gpu=data["gpu"],
            device_bytes=data["deviceBytes"],
            fraction=data["fraction"],
            budget_bytes=data["budgetBytes"],
            weight_bytes=data["weightBytes"],
            overhead_bytes=data["overheadBytes"],
            kv_budget_bytes=data["kvBudgetBytes"],
            kv_tokens=data["kvTokens"],
            kv_bytes_per_token=data["kvBytesPerToken"],
            max_model_len=data["maxModelLen"],
            max_num_seqs=data["maxNumSeqs"],
            assumptions=tuple(data["assumptions"]),
        )


def memory_budget(workload: Workload) -> MemoryBudget | None:
    """The budget of one GPU of ``workload``; None unless the GPU's memory, the model's
    architecture and its weights are known (the rules need the same facts). Read field by
    field: every lint builds it for every workload (``coverage/gaps.py``)."""
    record = workload.record
    if record.capacity is None or record.engine is None or record.engine.value.name is None:
        return None
    server = record.engine.value.name.value
    figures = record.capacity.value

    def number(name: str) -> Any:
        item = getattr(figures, name)
        return None if item is None else item.value

    needed = (
        "gpu_memory_bytes",
        "memory_budget_bytes_per_gpu",
        "weight_bytes_per_gpu",
        "kv_budget_bytes_per_gpu",
        "kv_tokens_per_gpu",
        "kv_bytes_per_token_per_gpu",
    )
    found = {name: number(name) for name in needed}
    fraction = number("memory_fraction")
    if server not in FRACTION_SETTING or not all(isinstance(v, int) for v in found.values()):
        return None
    if not isinstance(fraction, int | float):
        return None
    length, every = number("tokens_requested"), number("tokens_for_all_sequences")
    sequences = every // length if isinstance(every, int) and isinstance(length, int) else None
    product = record.gpu.value.product if record.gpu is not None else None
    return MemoryBudget(
        server=server,
        gpu=product.value if product is not None and isinstance(product.value, str) else None,
        device_bytes=found["gpu_memory_bytes"],
        fraction=float(fraction),
        budget_bytes=found["memory_budget_bytes_per_gpu"],
        weight_bytes=found["weight_bytes_per_gpu"],
        overhead_bytes=int(number("overhead_bytes_per_gpu") or 0),
        kv_budget_bytes=found["kv_budget_bytes_per_gpu"],
        kv_tokens=found["kv_tokens_per_gpu"],
        kv_bytes_per_token=found["kv_bytes_per_token_per_gpu"],
        max_model_len=length if isinstance(length, int) else None,
        max_num_seqs=sequences,
        assumptions=tuple(str(a) for a in number("assumptions") or ()),
    )
