"""Text reports cut values at ``--width`` and name injections by their ``match``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conftest import metaplan_cli, raw_json
from metaplan.frozen import canonical_bytes, shorten
from metaplan.views.labels import TextStyle, injection_matches

Raw = dict[str, Any]
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                     lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                     max_leaves=20)


@given(_JSON, st.integers(10, 200))
def test_a_value_is_cut_to_the_width_and_keeps_its_start(value: Any, width: int) -> None:
    whole = re.sub("[\x7f-\x9f\u2028\u2029]", lambda m: f"\\u{ord(m.group()):04x}",
                   canonical_bytes(value).decode("utf-8", "replace"))
    cut = shorten(value, width)
    assert len(cut) <= width
    assert cut == whole or (cut.endswith("...") and whole.startswith(cut[:-3]))
    assert shorten(value, 0) == whole


def _pair(tmp_path: Path) -> tuple[Path, Path, Raw]:
    a = raw_json("deepseek_v3.hf5")
    b = json.loads(json.dumps(a))
    for i in (3, 4, 5):
        b["injections"][i]["ep_size"] = 16
    b["injections"][9]["note"] = "n" * 150
    paths = tmp_path / "a.json", tmp_path / "b.json"
    for path, raw in zip(paths, (a, b), strict=True):
        path.write_text(json.dumps(raw))
    return *paths, a


def test_diff_names_each_injection_by_its_match_folded_or_not(tmp_path: Path) -> None:
    a, b, raw = _pair(tmp_path)
    matches = [raw["injections"][i]["match"] for i in (3, 4, 5, 9)]
    assert matches[:3] == [f"model.layers.{n}.mlp" for n in (6, 7, 8)]
    folded = metaplan_cli("diff", a, b).stdout.decode().splitlines()
    assert folded[4] == ("  ~ injections[{3..5}].ep_size: 8 -> 16  (3 changes)  "
                         "(match: model.layers.{6..8}.mlp)")
    assert folded[5].endswith(f"...  (match: {matches[3]})"), folded[5]
    expanded = metaplan_cli("diff", a, b, "--expand").stdout.decode().splitlines()
    assert expanded[4:7] == [f"  ~ injections[{i}].ep_size: 8 -> 16  (match: {m})"
                             for i, m in zip((3, 4, 5), matches, strict=False)]


def test_width_cuts_values_or_never(tmp_path: Path) -> None:
    a, b, _ = _pair(tmp_path)
    added = "+ injections[9].note: "
    line = {width: next(text for text in metaplan_cli(
        "diff", a, b, *(("--width", str(width)) if width is not None else ())
    ).stdout.decode().splitlines() if added in text) for width in (None, 0, 20)}

    def value(text: str) -> str:
        return text.split(added)[1].split("  (match:")[0]

    assert value(line[0]) == json.dumps("n" * 150)
    assert value(line[20]) == '"' + "n" * 16 + "..." and len(value(line[20])) == 20
    assert len(value(line[None])) == 80
    for bad in ("5", "-1", "wide", "9"):
        done = metaplan_cli("diff", a, b, "--width", bad)
        assert done.returncode == 2 and done.stdout == b""
        assert done.stderr.decode().startswith("metaplan diff: error: argument --width: "
                                               "expected a whole number of characters, 10 or "
                                               f"more (0: never cut), got {bad!r}")


def test_a_conflict_on_an_injection_names_its_match(tmp_path: Path) -> None:
    base = raw_json("deepseek_v3.hf5")
    sides = []
    for size in (16, 32):
        side = json.loads(json.dumps(base))
        side["injections"][5]["ep_size"] = size
        sides.append(side)
    paths = [tmp_path / f"{name}.json" for name in ("base", "ours", "theirs")]
    for path, raw in zip(paths, (base, *sides), strict=True):
        path.write_text(json.dumps(raw))
    done = metaplan_cli("merge", *paths)
    assert done.returncode == 1
    assert ("  injections[5].ep_size: base 8, ours 16, theirs 32  (match: model.layers.8.mlp)"
            in done.stderr.decode().splitlines())


def test_injection_matches_reads_each_side_and_skips_what_is_not_a_name() -> None:
    assert injection_matches({"injections": "x"}, {"model_type": "m"}) == {}
    style = TextStyle(injections={2: "m.{a,b}"})
    assert style.about_pattern("injections[{1..3}].x") == r"  (match: m.\{a\,b\})"  # as a pattern
    assert style.about_pattern("param_plan") == "" and style.about(("injections", "2")) == ""
