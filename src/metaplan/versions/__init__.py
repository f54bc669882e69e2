"""Plans between versions: diffs (item-level arrays), folded groups, ignore lists, three-way
merge and rebase, and pipeline comparison."""

__all__: list[str] = []
