"""The emitter's invariants and the normal-form checks, by name
(:data:`metaplan.checks.invariants.CHECKS`)."""

__all__: list[str] = []
