"""The serving model: canonical, typed settings of inference workloads, with origins."""

from linter.model.workload import Origin, Workload

__all__ = ["Origin", "Workload"]
