"""A server setting a front end read from a key of its input, not from a command line.

Helm values layouts (``maxModelLen: 131072``, ``model.name``), chart profiles
(``{flag: --max-model-len, key: vllmConfig.maxModelLen}``) and a server's own
configuration file name settings by key. Each front end hands the build a list of
``SettingInput`` records (``build.Meta.setting_inputs``); ``server.engine_record`` types
them with the setting's kind and applies them where the chart puts them, after the
command's own flags and before the container's ``args``: argparse keeps the last
occurrence, so a flag the values also write in ``args``/``extraArgs`` wins over the key.
"""

from __future__ import annotations

from typing import Any

from linter.lightclass import frozen
from linter.model.engine.registry import Setting
from linter.positions import Origin


@frozen
class SettingInput:
    """One setting as written: the registry setting it names, the value as written, where
    it was written, the key as written and the flag the chart passes it as.

    ``setting`` is None for a flag a chart profile names that the server's registry does
    not know: it is recorded in ``engine.flags`` only (``value`` True for a bare switch).
    ``flag`` is the setting's long flag,
    or ``--no-<flag>`` for a switch the chart turns off."""

    setting: Setting | None
    value: Any
    origin: Origin
    key: str
    flag: str

    @property
    def switched_off(self) -> bool:
        """A switch written off (``enforceEager: false`` renders ``--no-enforce-eager``)."""
        return self.flag.startswith("--no-") and (
            self.setting is None or self.flag != self.setting.flags[0]
        )

    def text(self) -> str:
        """The value as the server's parser receives it: a switch has none (``true``), a
        list of integers is space-separated (``nargs='+'``), YAML booleans are lower case."""
        if self.setting is not None and self.setting.kind == "bool":
            return "true"
        if isinstance(self.value, list):
            return " ".join(value_text(item) for item in self.value)
        return value_text(self.value)

    def written(self) -> str:
        """The value as the values file writes it, a list in flow style (``[8192, 4096]``):
        how a value servelint cannot read is shown."""
        if isinstance(self.value, list):
            return "[" + ", ".join(value_text(item) for item in self.value) + "]"
        return value_text(self.value)


def value_text(value: object) -> str:
    """A YAML scalar as a chart renders it into text (booleans in lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
