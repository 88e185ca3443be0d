"""The subcommands of ``servelint``, one module each. ``linter.cli`` names them in its
registry and imports only the module of the command that runs (its help lists them all)."""
