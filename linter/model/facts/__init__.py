"""Facts looked up for a workload: the model and accelerator catalogues, quantities, and the KV-cache capacity arithmetic."""
