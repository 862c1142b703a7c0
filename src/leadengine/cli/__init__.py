"""The ``leadengine`` command line: a thin layer that parses options, calls the library
and prints.

* :mod:`~leadengine.cli.commands`: the ``leadengine`` group, the evaluation commands
  (``evaluate``, ``compare``, ``profile``, ``schema``, ``eval-judge``), ``main`` (the
  console script) and ``seed_main`` (``main.py``);
* :mod:`~leadengine.cli.knowledge`: ``kb search``, ``kb eval``, ``kb list``;
* :mod:`~leadengine.cli.batch`: ``batch``; :mod:`~leadengine.cli.results`: ``runs``,
  ``show``, ``export``;
* :mod:`~leadengine.cli.models`: ``models`` and ``models --check``;
* :mod:`~leadengine.cli.serve`: ``serve``, the team's workspace;
* :mod:`~leadengine.cli.common`: the options and error handling every command shares;
* :mod:`~leadengine.cli.examples`: the examples ``--help`` shows.
"""

from leadengine.cli.commands import cli, main, seed_main

__all__ = ["cli", "main", "seed_main"]
