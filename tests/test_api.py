"""The public names are pinned: adding or dropping one is a deliberate change."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
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
    # versions
    "fold_changes", "format_folded", "merge", "rebase",
}
PACKAGES = (
    ("values", ("_moved", "version", "viewing", "paths", "errors", "settings", "frozen", "names",
                "fields")),
    ("algorithms", ("algorithms.braces", "algorithms.patterns", "algorithms.sequences",
                    "algorithms")),
    ("files", ("files.inputs", "files.outputs", "files.jsonio", "files.streaming",
               "files.packing", "files.side_by_side", "files")),
    ("core", ("core.rules.models", "core.rules.checking", "core.rules.specs",
              "core.rules.builtin", "core.rules.reading", "core.rules", "core.shape",
              "core.digest", "core.plan", "core.emitter", "core.invariants", "core")),
    ("records", ("records.change", "records.codec", "records.algebra", "records.patch",
                 "records.edit", "records")),
    ("passes", ("passes.trace", "passes.steps", "passes.makers", "passes.chaining",
                "passes._edits", "passes.strip_ep", "passes.strip_external",
                "passes.mark_shared", "passes.slimming", "passes.registry", "passes",
                "passes.normal_form", "passes.compat", "passes.oracle")),
    ("versions", ("versions.diffing", "versions.folding", "versions.ignoring",
                  "versions.merging", "versions.comparing", "versions")),
    ("views", ("views.labels", "views.text", "views.html.markup", "views.html.data",
               "views.html.assets", "views.html.layout", "views.html.svg", "views.html.groups",
               "views.html.unchanged", "views.html.reports", "views.html.history",
               "views.html.runs", "views.html.checks", "views.html.notebook", "views.html",
               "views")),
    ("batch", ("batch.pool", "batch")),
    ("testing", ("testing.composing", "testing.strategies", "testing.violating",
                 "testing.laws", "testing.version_pairs", "testing.random_edits",
                 "testing.machine", "testing")),
    ("cli", ("cli._io", "cli._parser", "cli._paths", "cli._common", "cli._style", "cli._sides",
             "cli._bisect", "cli._trace", "cli._normalize", "cli._diff", "cli._merge",
             "cli._setup", "cli._records", "cli._explain", "cli._compare", "cli._verify",
             "cli._batch", "cli._main", "cli", "__main__")),
    ("api", ("",)),
)
"""The layers, lowest first, each a package (``values`` are the top-level modules; ``api`` is
``metaplan/__init__.py``): a module imports only its own package's modules before it and the
packages below (docs/ARCHITECTURE.md's layer table is checked against this)."""
LAYERS = tuple(name for _, names in PACKAGES for name in names)
"""Every module, lowest first."""
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


def _package(name: str) -> str:
    """The layer a module belongs to."""
    return next(layer for layer, names in PACKAGES if name in names)


RANK = {layer: rank for rank, (layer, _) in enumerate(PACKAGES)}


@pytest.mark.parametrize("name", MODULES)
def test_no_package_imports_a_layer_above_it(name: str) -> None:
    layer = _package(name)
    for module, _ in _imports(name):
        assert RANK[_package(module)] <= RANK[layer], (
            f"{name} (layer {layer}) imports {module} from layer {_package(module)}, above it")


def test_the_layers_are_directories() -> None:
    """A directory listing shows the layers: every package but ``values`` is a directory,
    and a module lives in its layer's directory."""
    for layer, names in PACKAGES:
        for name in names:
            if layer in ("values", "api") or name == "__main__":
                assert "." not in name, name
            elif name != "":
                assert name.split(".")[0] == layer, (layer, name)


def test_no_module_is_named_like_a_public_function() -> None:
    """``import metaplan.x`` never rebinds a public ``metaplan.x``."""
    basenames = {name.rsplit(".", 1)[-1] for name in LAYERS if name}
    assert not basenames & PUBLIC
    assert not {layer for layer, _ in PACKAGES} & PUBLIC


def test_dir_shows_the_api_only() -> None:
    shown = {name for name in dir(metaplan) if not name.startswith("__")}
    assert shown == {name for name in PUBLIC if not name.startswith("__")}


def test_the_api_module_has_no_class_swap() -> None:
    assert type(metaplan) is type(sys)


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
        # mypy --strict (warn_unused_ignores) fails here if it sees the lazy __getattr__,
        # which would let a user's typo through
        metaplan.nope  # type: ignore[attr-defined]  # noqa: B018


def test_all_is_written_once() -> None:
    assert metaplan.__all__ == sorted(metaplan._EXPORTS)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_all(name: str) -> None:
    module = importlib.import_module(f"metaplan.{name}")
    assert isinstance(module.__all__, list)
    assert all(hasattr(module, item) for item in module.__all__)


def _architecture_rows() -> list[tuple[str, list[str]]]:
    """``(layer, modules)`` of each row of docs/ARCHITECTURE.md's layer table."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md").read_text()
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| layer ")]
    return [(layer.strip(), re.findall(r"`([^`]+)`", modules)) for layer, modules in rows]


def test_the_architecture_table_is_the_ranking() -> None:
    expected = [(layer, ["__init__" if name == "" else name.removeprefix(f"{layer}.")
                         for name in names if name != layer])
                for layer, names in PACKAGES]
    assert _architecture_rows() == expected


def test_the_architecture_diagram_is_the_ranking() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md").read_text()
    diagram = text.split("```mermaid\nflowchart BT\n", 1)[1].split("```", 1)[0]
    chain = [word for word in re.split(r"\s*-->\s*|\s+", diagram) if word]
    layers = [layer for layer, _ in PACKAGES]
    # each line continues from the last layer of the line before
    assert list(dict.fromkeys(chain)) == layers


PRIVATE_READS = {
    # JSONMap's raw dict, read (never written) where a view per entry would cost: the edit
    # engine, the diff's entry walk and the emitter's predicate
    "_data": {"records/edit.py", "versions/diffing.py", "core/emitter.py"},
    # argparse has no public way to list or type sub-commands
    "_SubParsersAction": {"cli/_parser.py"}, "_group_actions": {"cli/_parser.py"},
    "_subparsers": {"cli/_parser.py"}, "_actions": {"cli/_parser.py"},
}
"""The only private attributes a module may read on a type it does not define."""
_STDLIB_PRIVATE = {"_getframe", "_exit", "_replace", "_fields", "_asdict", "_make"}


def _owned(tree: ast.AST) -> set[str]:
    """The private names the classes of a module define (methods, slots, attributes)."""
    owned: set[str] = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                owned.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("self", "cls"):
                owned.add(node.attr)
            elif isinstance(node, ast.Name):
                owned.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                owned.add(node.value)  # __slots__
    return owned


def test_no_module_touches_another_types_private_state() -> None:
    """A type's private attributes are read and written in its own module only (the edit
    engine once wrote ``JSONMap._canon`` and read ``Plan``'s slots); a write is never
    allowed, a read only as PRIVATE_READS says."""
    src = Path(metaplan.__file__).resolve().parent
    found = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text())
        owned, where = _owned(tree), str(path.relative_to(src))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") \
                    or node.attr.startswith("__") or node.attr in owned | _STDLIB_PRIVATE:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if isinstance(node.ctx, ast.Load) and where in PRIVATE_READS.get(node.attr, ()):
                continue
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_objects_are_made_behind_their_types_back_only_in_their_own_module() -> None:
    """``tuple.__new__`` / ``object.__new__`` skip a type's constructor: only the module that
    defines the type may do it (the edit engine and the diff made ``Change`` s with
    ``tuple.__new__``; they use ``Change._make``, which is that, bound by ``Change``)."""
    src = Path(metaplan.__file__).resolve().parent
    found = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text())
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "__new__" \
                    and isinstance(node.value, ast.Name) and node.value.id in ("tuple", "object"):
                parent = next((call for call in ast.walk(tree) if isinstance(call, ast.Call)
                               and call.func is node), None)
                made = parent.args[0] if parent is not None and parent.args else None
                if not (isinstance(made, ast.Name) and made.id in defined):
                    found.append(f"{path.relative_to(src)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []
