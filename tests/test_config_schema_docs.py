"""The schema of ``.servelint.yaml`` for editors (README, "Editor support: the schema"):
it names itself and describes every key, and the configurations the project shows (the
example file, the README's examples) are valid against it and load."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from linter.parsing.documents import parse_yaml
from linter.parsing.schemacheck import schema_errors
from linter.run.config import load_config

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schemas" / "config.schema.json"
EXAMPLE = ROOT / "examples" / "config" / ".servelint.yaml"
RAW = "https://raw.githubusercontent.com/servelint/servelint/main/schemas/config.schema.json"


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


def readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"\n{title}\n", 1)[1].split("\n## ", 1)[0]


def described(node: Any, path: str = "") -> Iterator[str]:
    """The paths of the keys (``properties``) and definitions without a description."""
    if isinstance(node, dict):
        for group in ("properties", "$defs"):
            for name, child in (node.get(group) or {}).items():
                if isinstance(child, dict) and "description" not in child:
                    yield f"{path}/{group}/{name}"
        for key, child in node.items():
            yield from described(child, f"{path}/{key}")
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from described(child, f"{path}/{index}")


def test_the_schema_names_itself_and_describes_every_key() -> None:
    found = schema()
    assert found["$id"] == "https://servelint.dev/schemas/config.schema.json"
    assert found["title"] == "servelint configuration"
    assert found["description"].startswith("The .servelint.yaml file")
    assert list(described(found)) == []
    jsonschema.Draft202012Validator.check_schema(found)


def errors(name: str, text: str) -> list[str]:
    """What servelint says of a configuration: its schema check, with the models and GPU
    schemas the configuration schema refers to."""
    [document] = parse_yaml(name, text).documents
    return schema_errors(document, "config.schema.json")


def test_the_example_file_names_the_schema_and_is_valid() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert (
        text.splitlines()[0] == "# yaml-language-server: $schema=../../schemas/config.schema.json"
    )
    assert (EXAMPLE.parent / "../../schemas/config.schema.json").resolve() == SCHEMA
    assert f"$schema={RAW}" in text
    assert errors(str(EXAMPLE), text) == []
    assert load_config(EXAMPLE).fail_level.label == "error"


@pytest.mark.parametrize("title", ["## Configuration", "### Editor support: the schema"])
def test_the_readme_examples_are_valid(title: str) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", readme_section(title), re.S)
    assert blocks
    for block in blocks:
        assert errors("README.md", block) == []
    # The check is a real one: a wrong value of the same example is refused.
    assert errors("README.md", blocks[0].replace("failLevel: warning", "failLevel: loud")) != []


def test_the_readme_maps_the_file_names_to_the_schema_for_vs_code() -> None:
    [block] = re.findall(
        r"```json\n(.*?)```", readme_section("### Editor support: the schema"), re.S
    )
    assert json.loads(block) == {"yaml.schemas": {RAW: [".servelint.yaml", ".servelint.yml"]}}
    assert f"# yaml-language-server: $schema={RAW}" in readme_section(
        "### Editor support: the schema"
    )
