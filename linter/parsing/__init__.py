"""Reading inputs: YAML, JSON and TOML into plain data with positions, and schema checks."""
