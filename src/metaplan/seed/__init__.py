"""The seed, for comparison: its in-place signature on top of the pure passes (``compat``) and
its routine transcribed (``oracle``), the in-place oracle of the tests."""

__all__: list[str] = []
