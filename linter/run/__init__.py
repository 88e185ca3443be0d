"""One lint run: configuration, inputs, the pipeline, governance (suppressions, baselines)."""
