"""The serving model: canonical, typed settings of inference workloads, with origins."""

from linter.model.records.workload import Workload
from linter.positions import Origin

__all__ = ["Origin", "Workload"]
