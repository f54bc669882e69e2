"""One style of JSON round trip: a value with a JSON form writes it with ``to_json()`` and
reads it back, checked, with its type's ``from_json()``; files of many are ``dump*`` /
``load*`` functions (records, rules, specs)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings

import metaplan
from metaplan.core.rules import reading
from metaplan.errors import InputError, SpecError
from metaplan.records import codec
from metaplan.testing import plans, rule_lists, spec_registries


def _through_text(value: Any) -> Any:
    """``value`` as a file would give it back: JSON text, parsed."""
    return json.loads(json.dumps(value))


def test_every_public_type_with_a_json_form_reads_it_back() -> None:
    typed = {name for name in metaplan.__all__ if isinstance(getattr(metaplan, name), type)}
    writes = {name for name in typed if hasattr(getattr(metaplan, name), "to_json")}
    reads = {name for name in typed if hasattr(getattr(metaplan, name), "from_json")}
    assert writes == reads
    assert {"Plan", "Change", "ChangeRecord", "InlineRule", "StrategySpec",
            "SpecRegistry"} <= writes
    for name in reads:
        assert isinstance(vars(getattr(metaplan, name)).get("from_json"), classmethod), name


@settings(max_examples=60)
@given(spec_registries())
def test_a_registry_round_trips_through_its_json(registry: metaplan.SpecRegistry) -> None:
    data = _through_text(registry.to_json())
    assert metaplan.SpecRegistry.from_json(data) == registry
    assert reading.specs_from_json(data) == registry  # the older name reads it alike
    for spec in registry.specs.values():
        assert metaplan.StrategySpec.from_json(_through_text(spec.to_json())) == spec


@settings(max_examples=60)
@given(rule_lists())
def test_rules_round_trip_through_their_json(rules: tuple[metaplan.InlineRule, ...]) -> None:
    for rule in rules:
        assert metaplan.InlineRule.from_json(_through_text(rule.to_json())) == rule
    assert reading.rules_from_json(_through_text([r.to_json() for r in rules])) == rules


@settings(max_examples=25)
@given(plans())
def test_records_and_changes_round_trip_through_their_json(plan: metaplan.Plan) -> None:
    result = metaplan.normalize(plan)
    for record in result.records:
        data = _through_text(record.to_json())
        assert data["format"] == "metaplan.record/2"
        assert metaplan.ChangeRecord.from_json(data) == record
        for change in record.changes:
            assert metaplan.Change.from_json(_through_text(change.to_json())) == change
    assert metaplan.Plan.from_json(_through_text(plan.to_json())) == plan


def test_the_older_names_are_the_types_readers_and_writers() -> None:
    record = metaplan.ChangeRecord("p", "sha256:a", "sha256:b",
                                   (metaplan.Change("set", ("x", 0), 1, 2, "why"),))
    assert codec.record_to_json(record) == record.to_json()
    assert codec.record_from_json(record.to_json()) == record
    assert codec.change_from_json({"op": "add", "path": ["x"], "new": 1}, "c") == \
        metaplan.Change("add", ("x",), None, 1, "")
    spec = {"target": "t.fn", "kind": "k"}
    assert reading.spec_from_json(spec) == metaplan.StrategySpec.from_json(spec)
    assert reading.rule_from_json({"match": "m"}) == metaplan.InlineRule(("m",))


def test_a_spec_writes_every_field_it_reads() -> None:
    spec = metaplan.StrategySpec("t.fn", "moe_ep_routed", target_class="MoE",
                                 strip_boundary_subpatterns=("experts.*",), model_type="m",
                                 options=metaplan.freeze({"a": [1]}))
    assert spec.to_json() == {"target": "t.fn", "kind": "moe_ep_routed", "target_class": "MoE",
                              "strip_boundary_subpatterns": ["experts.*"], "model_type": "m",
                              "options": {"a": [1]}}
    registry = metaplan.SpecRegistry.of((spec,), {"Arch": "m"})
    assert registry.to_json() == {"specs": [spec.to_json()], "aliases": {"Arch": "m"}}
    assert metaplan.SpecRegistry().to_json() == {"specs": [], "aliases": {}}


def test_readers_say_where_a_bad_value_is() -> None:
    with pytest.raises(SpecError, match=r"^specs: specs\[0\]\.kind: must be a string, found a "
                                        r"number \(3\)$"):
        metaplan.SpecRegistry.from_json({"specs": [{"target": "t", "kind": 3}]})
    with pytest.raises(SpecError, match=r"^r\.match\[1\]: a glob pattern is a string"):
        metaplan.InlineRule.from_json({"match": ["a", 2]}, "r")
    with pytest.raises(InputError, match=r"^record\.changes\[0\]\.op: must be one of"):
        metaplan.ChangeRecord.from_json({"pass": "p", "base": "b", "result": "r",
                                         "changes": [{"op": "move"}]})
    with pytest.raises(InputError, match=r"^change: a change is an object, found an array$"):
        metaplan.Change.from_json([])


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_a_records_file_reads_values_as_deep_as_a_plan_reads_and_no_deeper() -> None:
    def records_file(depth: int) -> str:
        change = {"op": "set", "path": ["x"], "old": 1, "new": _nested(depth)}
        return json.dumps({"format": "metaplan.records/2", "records": [
            {"format": "metaplan.record/2", "pass": "p", "base": "b", "result": "r",
             "changes": [change]}]})

    (record,) = codec.loads_records(records_file(254))
    assert record.changes[0].new == metaplan.freeze(_nested(254))
    with pytest.raises(InputError, match=r"^records: records\[0\]\.changes\[0\]\.new\[0\].*: "
                                         r"nested more than 259 levels deep"):
        codec.loads_records(records_file(255))
