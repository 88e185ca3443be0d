"""Front ends: each family of kinds and layouts read into workloads (Kubernetes objects, operator resources, Helm values and chart profiles, Compose, Triton model repositories)."""
