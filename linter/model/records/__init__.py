"""The serving model's records: located values, the pod and its containers, probes, resources, exposure, the workload and the view CEL sees."""
