"""The pass protocol and pipelines: traces, ``PassResult`` and ``Contract``, ``edit_pass`` /
``changes_pass``, pipelines (nesting inlined, contracts checked) and replay."""

__all__: list[str] = []
