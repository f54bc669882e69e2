"""Text for people: how a value is cut and an injection named (``TextStyle``), and the
text reports (diffs folded, histories, conflicts, findings, stats); in ``views.html``, the
self-contained HTML reports and the notebook views."""

__all__: list[str] = []
