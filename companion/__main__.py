"""``python -m companion``: the same command line as the ``companion`` script."""

from companion.cli import main

raise SystemExit(main())
