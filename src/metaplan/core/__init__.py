"""The plan: rules and specs, what a plan file must hold, content hashes, the ``Plan``
container and its files, and how the emitter reads a plan."""

__all__: list[str] = []
