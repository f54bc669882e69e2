"""``python -m metaplan``: the same command as ``metaplan``."""

from metaplan.cli import console

if __name__ == "__main__":
    console()
