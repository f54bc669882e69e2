"""Algorithms on names and sequences, knowing nothing of plans: brace patterns (fold, expand),
module patterns (braces, then globs, with did-you-mean) and array edit scripts and merges."""

__all__: list[str] = []
