"""Evaluate a set of inputs: read, parse, build workloads, run the policies, scrub secrets."""
