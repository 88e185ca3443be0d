"""``-o FILE`` of the commands that write a report (``lint``, ``drift``, ``test``): a
bare format name is refused. Imports only click, so every command can use it."""

from __future__ import annotations

import click

# ``-o`` given a format name: checkov spells its output format ``-o sarif``, which here
# would write the text report to a file named "sarif" and show nothing. A bare name of a
# format (servelint's, or checkov's spelling of one) is refused; a path (``./sarif``,
# ``out/sarif``, ``sarif.json``) is a file as always.
_FORMAT_WORDS = {
    "text": "text",
    "cli": "text",
    "json": "json",
    "sarif": "sarif",
    "junit": "junit",
    "junitxml": "junit",
    "github": "github",
    "github_failed_only": "github",
    "prometheus": "prometheus",
    "html": "html",
}


def output_file(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``-o FILE``; a usage error (exit 2) when FILE is a bare format name."""
    fmt = _FORMAT_WORDS.get(value.lower()) if value is not None else None
    if fmt is None:
        return value
    raise click.BadParameter(
        f"'{value}' is a format name, not a file: give the format with --format {fmt} "
        f"(and a file with -o, e.g. --format {fmt} -o servelint.{_SUFFIXES.get(fmt, fmt)}); "
        f"to write a file named '{value}', write ./{value}",
        ctx,
        param,
    )


_SUFFIXES = {"text": "txt", "junit": "xml", "prometheus": "prom"}
