"""Every built-in rule explains itself and cites its upstream source."""

from __future__ import annotations

from linter.policy import load_policies


def test_every_builtin_rule_has_title_description_fix_and_references() -> None:
    policies = load_policies()
    incomplete = [
        rule.id
        for policy in policies
        for rule in policy.rules
        if not (rule.title and rule.description and rule.fix and rule.references)
    ]
    assert (len(policies) > 10, incomplete) == (True, [])


def test_builtin_rule_ids_are_unique_and_named_after_their_file() -> None:
    policies = load_policies()
    ids = [rule.id for policy in policies for rule in policy.rules]
    assert len(ids) == len(set(ids))
    mismatched = [p.name for p in policies if not p.source.endswith(f"/{p.name}.yaml")]
    assert mismatched == []
