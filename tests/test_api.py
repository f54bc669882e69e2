"""The public names are pinned: adding or dropping one is a deliberate change."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import metaplan

PUBLIC = {
    "BUILTIN_SPECS", "FROM_PLAN", "MISSING", "RUN_INPUT", "Change", "ChangeRecord",
    "ChangesPass", "ConflictError", "Contract", "ContractError", "Edit", "EditPass",
    "InlineRule", "InputError", "JSONMap",
    "NormalizeResult", "Pass", "PassError", "PassResult", "Pipeline", "Plan", "PlanError",
    "SpecError", "SpecRegistry", "StrategySpec", "Trace", "__version__", "apply",
    "apply_changes", "changes_pass", "compose", "diff", "dump", "dump_records", "dumps",
    "dumps_records", "edit_pass", "freeze", "invert", "load", "load_records", "load_rules",
    "load_specs", "loads", "loads_records", "mark_shared_class_boundaries", "normalize",
    "normalize_pipeline", "pipeline", "remove_in", "replay", "rules_from_plan", "run", "set_in",
    "strip_ep_sub_boundaries", "strip_external_state_boundaries", "thaw", "to_json_patch",
    # introspection
    "Comparison", "VerificationError", "Violation", "build_pipeline", "compare", "format_passes",
    "parse_passes", "verify",
    # the emitter's checks, upstream's model type, optional passes
    "model_type_of", "slim", "verification", "verifier",
}
LAYERS = (
    "version", "viewing", "errors", "settings", "frozen", "names", "fields", "braces", "patterns",
    "sequences", "inputs",
    "outputs", "jsonio", "streaming", "rules",
    "schema", "digest", "plan", "emitter", "change", "records", "algebra", "patch", "edit",
    "verify", "trace", "steps", "makers", "pipeline", "passes._edits", "passes.strip_ep",
    "passes.strip_external",
    "passes.mark_shared", "passes.slim", "passes.registry",
    "passes", "normalize", "diff", "fold", "ignore", "merge", "labels", "report", "compare",
    "html.markup", "html.data", "html.assets", "html.layout", "html.svg", "html.groups",
    "html.reports", "html.history", "html.runs", "html.checks", "html.notebook", "html",
    "compat", "oracle", "composing", "batch", "testing.strategies", "testing.random_edits",
    "testing.machine", "testing", "cli._io", "cli._parser", "cli._paths", "cli._common",
    "cli._sides", "cli._bisect", "cli._trace", "cli._normalize", "cli._diff", "cli._merge",
    "cli._setup", "cli._records", "cli._explain", "cli._compare", "cli._verify", "cli._batch",
    "cli._main", "cli",
    "__main__", "",
)
"""Every module, lowest first: a module imports only modules before it (the README's layers)."""
MODULES = tuple(name for name in LAYERS if name not in ("__main__", ""))


def _imports(name: str) -> list[tuple[str, tuple[str, ...]]]:
    """``(module, names)`` of every ``from metaplan... import`` in module ``name``."""
    spec = importlib.util.find_spec(f"metaplan.{name}" if name else "metaplan")
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text())
    return [(node.module.removeprefix("metaplan").lstrip("."), tuple(a.name for a in node.names))
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and (node.module == "metaplan" or node.module.startswith("metaplan."))]


def test_every_module_is_in_the_layers() -> None:
    src = Path(metaplan.__file__).resolve().parent
    found = {str(p.relative_to(src).with_suffix("")).replace("/", ".").removesuffix(".__init__")
             for p in src.rglob("*.py")}
    found = {"" if f == "__init__" else f for f in found}
    assert found == set(LAYERS)


@pytest.mark.parametrize("name", MODULES)
def test_no_module_imports_one_above_it(name: str) -> None:
    rank = LAYERS.index(name)
    for module, _ in _imports(name):
        assert module in LAYERS, (name, module)
        assert LAYERS.index(module) < rank, f"{name} imports {module}, which is above it"


@pytest.mark.parametrize("name", MODULES)
def test_modules_import_only_what_others_export(name: str) -> None:
    for module, names in _imports(name):
        target = importlib.import_module(f"metaplan.{module}" if module else "metaplan")
        exported = set(target.__all__)
        for item in names:
            is_module = importlib.util.find_spec(f"{target.__name__}.{item}") is not None \
                if hasattr(target, "__path__") else False
            assert item in exported or is_module, (
                f"{name} imports {item} from {module or 'metaplan'}, which does not export it")


def test_top_level_names_are_pinned() -> None:
    assert set(metaplan.__all__) == PUBLIC
    assert all(hasattr(metaplan, name) for name in PUBLIC)


def test_the_lazy_exports_are_the_typed_ones() -> None:
    """``import metaplan`` imports nothing else; each name comes from the module mypy sees."""
    exports = metaplan._EXPORTS
    typed = {item: f"metaplan.{module}" for module, names in _imports("") for item in names}
    assert exports == typed and set(exports) == set(metaplan.__all__)
    done = subprocess.run([sys.executable, "-c", "import sys, metaplan; "
                           "print(sorted(m for m in sys.modules if m.startswith('metaplan')))"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['metaplan']"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        metaplan.nope  # noqa: B018


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_all(name: str) -> None:
    module = importlib.import_module(f"metaplan.{name}")
    assert isinstance(module.__all__, list)
    assert all(hasattr(module, item) for item in module.__all__)
