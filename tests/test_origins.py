"""Every value of a workload points at the line that set it: written settings exactly,
derived figures at the setting they were derived from (never at an ancestor's line)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from linter.evaluate.inputs import read_inputs
from linter.helm.context import ChartContext, request_for
from linter.model.engine.settings import DEFAULT_SETTINGS
from linter.model.records.workload import Workload
from linter.parsing.documents import DEFAULT_LIMITS
from linter.policy import load_policies
from linter.sources.files import expand

ROOT = Path(__file__).parent.parent
CHART = ROOT / "examples" / "charts" / "vllm"
POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: team-context}
spec:
  target: workload
  matchConditions:
    - name: known
      expression: has(workload.capacity) && has(workload.capacity.tokens_requested)
  rules:
    - id: context-cap
      severity: warning
      title: context above the team's cap
      expression: workload.capacity.tokens_requested <= 65536
      message: "context {{ workload.capacity.tokens_requested }} above 65536"
      fieldPath: capacity.tokens_requested
"""


def _prod_workload() -> Workload:
    """The workload lint evaluates for values-prod.yaml in its chart's context."""
    parsed, _ = read_inputs(expand([str(CHART / "values-prod.yaml")]))
    context = ChartContext((request_for(str(CHART), [parsed[0].source]),))
    subjects = context.provider(load_policies(), parsed, DEFAULT_SETTINGS, DEFAULT_LIMITS)
    [release] = subjects.releases()
    [workload] = release.workloads
    return workload


def test_a_user_rule_on_a_derived_figure_lands_on_the_setting_it_came_from(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    (tmp_path / "team.yaml").write_text(POLICY)
    result = run_line(
        ["lint", "--no-config", "--no-builtin", "--policy-dir", str(tmp_path), str(CHART)]
    )
    assert (
        f"{CHART}/values-prod.yaml:42:7: warning team-context/context-cap context 131072 "
        "above 65536 [prod]" in result.output.splitlines()
    )


def test_written_settings_locate_exactly() -> None:
    workload = _prod_workload()
    written = {
        ("engine", "max_model_len"): ("values-prod.yaml", 42, 7),
        ("engine", "max_num_seqs"): ("values-prod.yaml", 44, 7),
        ("engine", "gpu_memory_utilization"): ("values.yaml", 26, 7),
        ("engine", "tensor_parallel_size"): ("values.yaml", 31, 7),
        ("engine", "model"): ("values.yaml", 20, 3),
    }
    for path, (name, line, column) in written.items():
        origin = workload.view().origins[path]  # exact: no ancestor stands in
        assert (Path(origin.source).name, origin.line, origin.column) == (name, line, column)


def test_derived_figures_locate_to_their_inputs() -> None:
    workload = _prod_workload()
    derived = {
        ("capacity", "tokens_requested"): ("engine", "max_model_len"),
        ("capacity", "kv_bytes_requested"): ("engine", "max_model_len"),
        ("capacity", "tokens_for_all_sequences"): ("engine", "max_num_seqs"),
        ("capacity", "tensor_parallel_size"): ("engine", "tensor_parallel_size"),
        ("capacity", "memory_fraction"): ("engine", "gpu_memory_utilization"),
        ("capacity", "memory_budget_bytes_per_gpu"): ("engine", "gpu_memory_utilization"),
        ("effective", "max_model_len"): ("engine", "max_model_len"),
    }
    for path, source in derived.items():
        assert workload.view().origins[path] == workload.view().origins[source], path
