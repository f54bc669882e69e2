"""Bytes in and out: bounded, strict reads (stdin, gzip, the size limit); all-or-nothing writes;
exact JSON text; large plans read entry by entry."""

__all__: list[str] = []
