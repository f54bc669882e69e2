"""The plan: rules and specs, what a plan file must hold, content hashes, the ``Plan``
container and its files, how the emitter reads a plan, and the emitter's invariants and the
normal-form checks, by name (:data:`metaplan.core.invariants.CHECKS`)."""

__all__: list[str] = []
