"""Write ``linter/model/engine/flagdata/release-dates.json``: the day each vLLM and SGLang release
reached PyPI (the earliest upload time of its files), from PyPI's JSON simple API.

servelint reads it to judge images tagged with a build date instead of a release
(``lmcache/vllm-openai:2025-04-18``): a flag removed by a release published after that
day was still accepted by the build. Maintenance script: servelint never imports it.

    python tools/flagtables/release_dates.py
"""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from pathlib import Path

SERVERS = {"vllm": "vllm", "sglang": "sglang"}
OUT = (
    Path(__file__).resolve().parents[2]
    / "linter"
    / "model"
    / "engine"
    / "flagdata"
    / "release-dates.json"
)
_ACCEPT = "application/vnd.pypi.simple.v1+json"


def release_dates(package: str) -> dict[str, str]:
    request = urllib.request.Request(
        f"https://pypi.org/simple/{package}/", headers={"Accept": _ACCEPT}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        index = json.load(response)
    found: dict[str, str] = {}
    pattern = re.compile(rf"^{re.escape(package)}-(\d[^-]*?)(?:\.tar\.gz|\.zip|-)")
    for item in index["files"]:
        match = pattern.match(item["filename"])
        uploaded = item.get("upload-time")
        if match is None or not uploaded:
            continue
        day = uploaded[:10]
        version = match.group(1)
        found[version] = min(found.get(version, day), day)
    return found


def main() -> int:
    tables = {server: release_dates(package) for server, package in SERVERS.items()}
    text = json.dumps(
        {
            "source": "https://pypi.org/simple/ (upload-time of each release's files)",
            "generator": "tools/flagtables/release_dates.py",
            "released": {s: dict(sorted(t.items())) for s, t in tables.items()},
        },
        indent=1,
        sort_keys=False,
    )
    OUT.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({', '.join(f'{s}: {len(t)}' for s, t in tables.items())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
