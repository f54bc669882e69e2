"""``python -m metaplan``: the same as the ``metaplan`` command."""

import sys

from metaplan.cli import main

sys.exit(main())
