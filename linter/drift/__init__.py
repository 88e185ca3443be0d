"""Drift: committed values against the configuration that servers really loaded.

``sides`` and ``engines`` build the two sides (by values path, or through the serving
model), ``normalize`` puts both in one canonical form, ``compare`` runs deepdiff and
classifies each difference (with ``defaults`` for the servers' defaults), ``items`` turns
differences into findings, ``scan`` runs a comparison against files or pods, and the
``report_*`` modules write text, JSON or Prometheus. ``options`` holds the CLI options and
imports nothing heavy.
"""
