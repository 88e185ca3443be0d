"""Secrets: what counts as one, finding literal ones, and masking them in every output."""
