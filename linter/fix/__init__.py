"""``servelint lint --fix`` and ``--diff`` (docs/fix.md): the fixes rules attach to their
findings, applied to the bytes where each value was written. Imported only when one of
those options is given."""
