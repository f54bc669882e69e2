"""Golden content hashes: the digest of every bundled plan and of small hand-built plans,
pinned, and records written by metaplan 0.3.0 that must replay to the same hashes.

These values were computed once and written here by hand: a change to the digest (its
bucket count, mask, canonical bytes) changes every plan's hash, and so every record's
``base`` and ``result``, and must fail this test. If the digest ever has to change, the
records format names its digest version and old records keep replaying.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, fixture_path, metaplan_cli

FIXTURE_HASHES = {
    "deepseek_v3.hf4": "77c4b3b27704ea6e972be20a6beb1b72c013718a01ace80916d4962f88717430",
    "deepseek_v3.hf4.expected": "ca40a73703551f54e8d3c805dd6b2c1e970b0027f550679198ca4d5ffec24c53",
    "deepseek_v3.hf5": "a8bc3767fc334a6c568f12052056c68b3ab608143b039b94be2f2df6d33f4cd3",
    "deepseek_v3.hf5.expected": "1e6d3085c0d6cc483ec2be3b058b304e945c5fd0843c34285f21de0db8b317a6",
    "llama3_8b.hf4": "7bf3c0af9e2232200f8cef02924a29bee05b53f47e8bdf0fa041170857126054",
    "llama3_8b.hf4.expected": "9ae53a1b92b6f5ca6ff8cd06c5e20de8e2ed0fbb9da55bf1ae60dfe6598aa00e",
    "qwen3_moe.hf4": "fb74ccb241833f4509a5abaf9ea7ac74fa4d8d304e59f2586eb9157ec3c18de7",
    "qwen3_moe.hf4.expected": "836384864c87e02367e9cd2de53ff48d0320232668357d78ce47ee095061b4ee",
    "qwen3_moe.hf5": "4d2d78d03a595ff95eaeeda4de65fed30da6d4b52d3fec8cc855c3f157e94938",
    "qwen3_moe.hf5.expected": "ed1d2f9cedab627595294946b463cdf8b2de8f2977281739e796b86bc0481812",
}

SMALL_PLANS: list[tuple[dict[str, Any], str]] = [
    ({"param_plan": {}},
     "81e3924aed4f69dff404963199f0a70381962e4760511b5f234168b9fb564bcb"),
    ({"param_plan": {"m": {"is_boundary": True}}, "boundary_classes": {"m": "MLP"}},
     "cdc037ba94dd850bdfbdef31dc03f5c852005c66ddeacc5c478be97eb98df838"),
    ({"param_plan": {"model.layers.0.mlp": {"is_boundary": False, "params": {"w": "S(0)"}}},
      "model_type": "x", "frozen_sharded_params": ["model.layers.0.mlp.w"]},
     "3a09314dfdabb687ccda3b069395ec5d8687066745765acd19a61c7bd82d25a4"),
]

RECORDS = DATA / "records-0.3.0"
"""``metaplan normalize PLAN --record`` of three fixtures, written by metaplan 0.3.0."""


def _hashes(*paths: Path) -> list[str]:
    done = metaplan_cli("hash", *paths)
    assert done.returncode == 0, done.stderr
    return [line.split()[0] for line in done.stdout.decode().splitlines()]


def test_every_bundled_plan_has_its_pinned_hash() -> None:
    names = sorted(FIXTURE_HASHES)
    assert _hashes(*(fixture_path(name) for name in names)) == [
        f"sha256:{FIXTURE_HASHES[name]}" for name in names]
    bundled = sorted(p.name.removesuffix(".json.gz") for p in DATA.glob("*.json.gz"))
    assert bundled == names, "a bundled plan without a pinned hash"


def test_small_hand_built_plans_have_their_pinned_hashes(tmp_path: Path) -> None:
    paths = []
    for i, (meta, _) in enumerate(SMALL_PLANS):
        path = tmp_path / f"plan{i}.json"
        path.write_text(json.dumps(meta))
        paths.append(path)
    assert _hashes(*paths) == [f"sha256:{digest}" for _, digest in SMALL_PLANS]


@pytest.mark.parametrize("name", ["deepseek_v3.hf5", "qwen3_moe.hf5", "llama3_8b.hf4"])
def test_records_written_by_0_3_0_replay_to_the_same_hashes(name: str, tmp_path: Path) -> None:
    records = RECORDS / f"{name}.normalize.json.gz"
    out = tmp_path / "replayed.json"
    done = metaplan_cli("replay", fixture_path(name), records, "-o", out)
    assert done.returncode == 0, done.stderr
    assert _hashes(out) == [f"sha256:{FIXTURE_HASHES[f'{name}.expected']}"]


def _layers(count: int) -> dict[str, Any]:
    return {"param_plan": {f"model.layers.{i}.mlp": {"is_boundary": i % 2 == 0}
                           for i in range(count)}}


# 64 entries fill one bucket, 65 need two; 128 fill two, 129 need four
BUCKET_EDGES = {
    64: "80fcafd767d86cfe986aadca66b0686099cd5c3b2aadb6da2cbfcf9b5bd92214",
    65: "c8132b9747eb78047a86e361be14bca1407c52fe7a89ef781d9e85b4df09186b",
    128: "236ccae0daef4f6d1f877da7aebfea843367cb4413171e2e66864630192772cb",
    129: "cd4cc06d7dce42159683ed717b3d3354ebde8d3bd4a55a6cca7b488f0555cd53",
}


@pytest.mark.parametrize("count", sorted(BUCKET_EDGES))
def test_plans_at_the_edges_of_a_bucket_have_their_pinned_hashes(count: int) -> None:
    import metaplan

    assert metaplan.Plan.from_json(_layers(count)).content_hash == (
        f"sha256:{BUCKET_EDGES[count]}")


def test_integers_past_64_bits_and_lone_surrogates_from_an_edit_have_pinned_hashes() -> None:
    import metaplan

    big = {"param_plan": {"m": {"is_boundary": True, "size": 2**70}}, "seed": 2**70}
    assert metaplan.Plan.from_json(big).content_hash == (
        "sha256:06ea1d7e939ca1b4d0b4f63a0c67d5dff787466b5431520798ee33a32b71a48d")
    # a file may not hold a lone surrogate, but a pass's edit can make one: it still hashes
    for hashed_first in (False, True):  # hashed from scratch, and derived from its parent
        parent = metaplan.Plan.from_json({"param_plan": {"m": {}}})
        if hashed_first:
            parent.content_hash  # noqa: B018
        edit = metaplan.Edit(parent)
        edit.set(("param_plan", "x\ud800"), {"is_boundary": True})
        assert edit.finish("x")[0].content_hash == (
            "sha256:98c7f95090557dda31afc2038c468c4ea289a9d7beabeeca5ab65c98f38b254a")


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def test_a_bucket_mixing_an_integer_past_64_bits_with_floats_and_text_hashes_as_documented(
        ) -> None:
    # orjson cannot write 2**70: that entry's bytes come from the stdlib, the others' from
    # orjson, in one bucket; the hash is still the documented one over canonical JSON
    import hashlib

    import metaplan

    entries = {"big": {"size": 2**70},
               "é": {"scale": 1e16, "eps": 1e-07, "name": "a\u2028b\x01\"\\/"},
               "m": {"is_boundary": True, "params": {"w": "S(0)"}}}
    bucket = hashlib.sha256(_canonical(entries)).digest()  # 3 keys: one bucket
    table = {"param_plan": hashlib.sha256(b"3:" + bucket).hexdigest(),
             "seed": hashlib.sha256(b"0.5").hexdigest()}
    documented = "sha256:" + hashlib.sha256(_canonical(table)).hexdigest()
    assert documented == (
        "sha256:6c15d7645c82a930fc65557ce7ad2963be0802b5e2dde46228b8c91d30bc5703")
    assert metaplan.Plan.from_json({"param_plan": entries, "seed": 0.5}).content_hash == (
        documented)
    parent = metaplan.Plan.from_json({"param_plan": {"big": {"size": 2**70}}, "seed": 0.5})
    parent.content_hash  # noqa: B018  (known, so the edit's hash is derived from it)
    edit = metaplan.Edit(parent)
    for fqn in ("é", "m"):
        edit.set(("param_plan", fqn), entries[fqn])
    assert edit.finish("x")[0].content_hash == documented
