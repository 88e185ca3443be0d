"""Helm charts: values merged as Helm merges them (with provenance), and rendering."""

from linter.helm.values import MergedValues, ValuesError, load_values, merge_values

__all__ = ["MergedValues", "ValuesError", "load_values", "merge_values"]
