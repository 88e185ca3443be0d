"""One GPU's memory budget in words: the parts ``show`` prints as a "GPU memory" block
and the HTML report draws as a bar. Sizes are written by the helper the kv rules' messages
use (``human_bytes``), so a label reads the number a finding states."""

from __future__ import annotations

from linter.lightclass import frozen
from linter.model.facts.budget import (
    FRACTION_SETTING,
    LENGTH_SETTING,
    SEQUENCES_SETTING,
    MemoryBudget,
)
from linter.policy.helpers import fixed, human_bytes

SERVER_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI"}


@frozen
class Part:
    """One stretch of the device's memory."""

    key: str  # weights | overhead | kv | free | outside: the colour of the HTML bar
    label: str
    size: int  # bytes
    detail: str = ""  # what follows the size


def parts(budget: MemoryBudget) -> list[Part]:
    """The device's memory from its start: what the server holds, then what lies outside
    its fraction. Empty parts are left out, except the KV cache (none fitting is news)."""
    fraction = fraction_text(budget)
    out = [Part("weights", "weights", budget.weight_bytes)]
    if budget.overhead_bytes:
        out.append(Part("overhead", "activations, CUDA graphs", budget.overhead_bytes, "allowance"))
    per_token = human_bytes(budget.kv_bytes_per_token)
    out.append(
        Part(
            "kv",
            "KV cache that fits",
            budget.kv_budget_bytes,
            f"{budget.kv_tokens} tokens at {per_token} per token",
        )
    )
    if budget.free_bytes:
        out.append(Part("free", "free", budget.free_bytes))
    if budget.outside_bytes:
        # SGLang keeps activations and CUDA graphs outside mem_fraction_static.
        what = (
            "activations, CUDA graphs" if not budget.overhead_bytes else "not given to the server"
        )
        out.append(Part("outside", f"outside {fraction}", budget.outside_bytes, what))
    return out


def fraction_text(budget: MemoryBudget) -> str:
    """``gpu_memory_utilization 0.90``, as the kv rules write it."""
    shown = "****" if budget.fraction is None else fixed(budget.fraction, 2)
    return f"{FRACTION_SETTING[budget.server]} {shown}"


def heading(budget: MemoryBudget) -> str:
    """``one NVIDIA-L4 of 22.5 GiB; vLLM takes 20.2 GiB at gpu_memory_utilization 0.9``."""
    gpu = budget.gpu or "GPU"
    server = SERVER_NAMES.get(budget.server, budget.server)
    fraction = fraction_text(budget)
    return (
        f"one {gpu} of {human_bytes(budget.device_bytes)}; {server} takes "
        f"{human_bytes(budget.budget_bytes)} at {fraction}"
    )


def needed(budget: MemoryBudget) -> list[tuple[str, int]]:
    """The KV cache the lengths ask for, beside what fits: each sentence and its size. The
    ratio is in tokens, as max-num-seqs-exceeds-kv-cache states it."""
    one = budget.kv_bytes_one_sequence
    if one is None or budget.max_model_len is None:
        return []
    length = f"{LENGTH_SETTING[budget.server]} {budget.max_model_len}"
    out = [(f"one sequence of {length}: {human_bytes(one)}{_beside(budget, one)}", one)]
    every = budget.kv_bytes_all_sequences
    if every is not None and budget.max_num_seqs is not None:
        tokens = budget.max_num_seqs * budget.max_model_len
        sentence = (
            f"{SEQUENCES_SETTING[budget.server]} {budget.max_num_seqs} × {length} = "
            f"{tokens} tokens: {human_bytes(every)}"
        )
        if budget.kv_tokens and tokens > budget.kv_tokens:
            sentence += f", {tokens // budget.kv_tokens}× the {budget.kv_tokens} tokens that fit"
        else:
            sentence += _beside(budget, every)
        out.append((sentence, every))
    return out


def _beside(budget: MemoryBudget, size: int) -> str:
    if budget.kv_budget_bytes <= 0:
        return ", no KV cache fits"
    if size <= budget.kv_budget_bytes:
        return ", fits"
    return f", more than the {human_bytes(budget.kv_budget_bytes)} that fit"


def text_lines(budget: MemoryBudget, indent: str = "  ") -> list[str]:
    """The "GPU memory" block of ``show``."""
    rows = [(part.label, human_bytes(part.size), part.detail) for part in parts(budget)]
    rows.append(("left after the weights", human_bytes(budget.free_after_weights_bytes), ""))
    width = max(len(label) for label, _, _ in rows)
    lines = [f"{indent}GPU memory ({heading(budget)}):"]
    lines.extend(
        f"{indent}  {label.ljust(width)}  {size}{f' ({detail})' if detail else ''}"
        for label, size, detail in rows
    )
    lines.extend(f"{indent}  KV cache needed for {item}" for item, _ in needed(budget))
    lines.extend(f"{indent}  assumed: {item}" for item in budget.assumptions)
    return lines
