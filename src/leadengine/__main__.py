"""``python -m leadengine``: the same as the ``leadengine`` command."""

from leadengine.cli import main

main()
