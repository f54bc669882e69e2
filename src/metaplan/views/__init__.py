"""Text for people: how a value is cut and an injection named (``TextStyle``), and the
text reports (diffs folded, histories, conflicts, findings, stats)."""

__all__: list[str] = []
