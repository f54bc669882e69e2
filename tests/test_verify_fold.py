"""``metaplan verify``'s text folds violations alike over numbered modules, losing nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import metaplan_cli as run
from conftest import raw_json
from metaplan.algorithms.braces import expand
from metaplan.core.invariants import Note, Violation
from metaplan.testing import violating_plan_dicts
from metaplan.versions.folding import fold_findings

Raw = dict[str, Any]


def _many() -> Raw:
    """The small DeepSeek-V3 plan with its 61 attention boundaries unclassed (one cause)
    and 38 of the MoE layers with another contract than the others (another cause)."""
    raw = raw_json("deepseek_v3.hf5")
    attention = [fqn for fqn in raw["boundary_classes"] if fqn.endswith(".self_attn")]
    for fqn in attention:
        del raw["boundary_classes"][fqn]
    for layer in (*range(3, 10), *range(30, 61)):
        raw["param_plan"][f"model.layers.{layer}.mlp"]["region_dispatch"] = True
    return raw


def _write(tmp_path: Path, raw: Raw) -> Path:
    path = tmp_path / "many.json"
    path.write_text(json.dumps(raw))
    return path


def _modules_in(lines: list[str]) -> set[tuple[str, str]]:
    """``(check, module)`` of each line's ``check: field["PATTERN"]...``, patterns expanded."""
    found = set()
    for line in lines:
        match = re.match(r'  ([\w-]+): (?:param_plan|boundary_classes)\["([^"]+)"\]', line)
        assert match, line
        found |= {(match[1], name) for name in expand(match[2])}
    return found


def test_one_cause_over_dozens_of_modules_is_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, _many())
    folded = run("verify", path)
    lines = folded.stdout.decode().splitlines()
    assert folded.returncode == 1, folded.stderr
    assert len(lines) <= 12, lines
    assert lines[0] == f"{path}: 99 violation(s) (boundary-class: 61, single-contract: 38)"
    assert lines[1] == ('  boundary-class: param_plan["model.layers.{0..60}.self_attn"]: a '
                        "boundary with no class in boundary_classes; add its class, or mark "
                        "it is_boundary: false  (61 modules)")
    pattern = "model.layers.{{3..9},{30..60}}.mlp"
    assert lines[2] == (f'  single-contract: boundary_classes["{pattern}"]: '
                        "class DeepseekV3MoE has 2 boundary contracts: model.layers.10.mlp has "
                        f"region_dispatch (absent), {pattern} has true (all "
                        "boundaries of a class share one forward; only params may differ)"
                        "  (38 modules)")
    as_json = json.loads(run("verify", path, "--format", "json").stdout)
    violating = {(v["check"], v["path"][1]) for v in as_json["violations"]}
    assert len(violating) == 99
    assert _modules_in(lines[1:3]) == violating


def test_expand_lists_every_violation_as_before(tmp_path: Path) -> None:
    raw = _many()
    path = _write(tmp_path, raw)
    expanded = run("verify", path, "--expand")
    assert expanded.returncode == 1
    lines = expanded.stdout.decode().splitlines()
    found = metaplan.verification(metaplan.Plan.from_json(raw))
    assert lines[1:] == [f"  {item}" for item in (*found.violations, *found.notes)]
    assert len(lines) == 1 + 99 + len(found.notes)


def test_a_sound_plan_still_exits_0_and_its_notes_fold(tmp_path: Path) -> None:
    raw = raw_json("deepseek_v3.hf5")
    for entry in raw["param_plan"].values():
        entry.pop("is_boundary", None)  # a boundary-reading note on each no-contract entry
    path = _write(tmp_path, raw)
    done = run("verify", path, "--checks", "boundary-reading")
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 0, done.stderr
    assert len(lines) <= 12 and lines[0] == f"{path}: ok (boundary-reading)"
    assert all(line.startswith("  note: boundary-reading: ") for line in lines[1:])
    assert any(line.endswith(" modules)") for line in lines[1:]), lines
    every = run("verify", path, "--checks", "boundary-reading", "--expand")
    assert every.returncode == 0 and len(every.stdout.splitlines()) > 12


def test_one_violation_prints_as_it_did(tmp_path: Path) -> None:
    raw = raw_json("deepseek_v3.hf5")
    raw["boundary_classes"]["model.ghost"] = "DeepseekV3MLP"
    done = run("verify", _write(tmp_path, raw), "--checks", "class-key")
    assert done.returncode == 1
    assert done.stdout.decode().splitlines()[1:] == [
        '  class-key: boundary_classes["model.ghost"]: no such module in param_plan']


# folding loses nothing -----------------------------------------------------------------

_NAMES = st.one_of(
    st.builds("model.layers.{}.{}".format, st.integers(0, 70),
              st.sampled_from(("mlp", "self_attn", "mlp.experts.3"))),
    st.sampled_from(("x", "m", "lm_head", "model.layers.1", "a.b", "")))
_MESSAGES = st.sampled_from((
    "bad", "{fqn} is bad", "expected x, found {fqn}.", "model.layers.1.mlp has 1, {fqn} has 2",
    "{fqn}{fqn}", "x\x00y {fqn}", "class {fqn}.inner is not {fqn}", ""))


@st.composite
def _findings(draw: st.DrawFn) -> list[Violation | Note]:
    note = draw(st.booleans())
    found: list[Violation | Note] = []
    for _ in range(draw(st.integers(0, 40))):
        fqn = draw(_NAMES)
        field = draw(st.sampled_from(("param_plan", "boundary_classes", "injections")))
        inner = draw(st.sampled_from(((), ("params", "w", "tp"), ("in_src",))))
        path = (field, draw(st.integers(0, 3)), *inner) if field == "injections" \
            else (field, fqn, *inner)
        message = draw(_MESSAGES).replace("{fqn}", fqn)
        check = draw(st.sampled_from(("placement", "schema")))
        found.append(Note(check, path, message) if note else Violation(check, path, message))
    return found


@given(_findings())
def test_folded_findings_expand_to_exactly_what_was_found(found: list[Violation | Note]) -> None:
    folded = fold_findings(found)
    back = [item for finding in folded for item in finding.expand()]
    assert sorted(back, key=repr) == sorted((tuple(f) for f in found), key=repr)
    for finding in folded:
        if finding.names:  # the place names the modules by one pattern: exactly them
            assert set(expand(finding.place.split('"')[1])) == set(finding.names)


@given(violating_plan_dicts())
def test_a_generated_violation_folds_to_itself(case: Any) -> None:
    found = metaplan.verification(metaplan.Plan.from_json(case.meta))
    folded = fold_findings(found.violations)
    assert [item for finding in folded for item in finding.expand()] == \
        [tuple(v) for v in found.violations]
