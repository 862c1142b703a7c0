"""What the fork server of a batch's shards holds before it forks them
(:func:`leadengine.batch_shards.start_processes`): the pipeline imported and the data
every page read consults loaded, so each shard starts warm and shares those pages of
memory with the others instead of loading its own copy."""

from __future__ import annotations

import leadengine.batch  # noqa: F401  (the pipeline, imported)
from leadengine.web.category import load_taxonomy
from leadengine.web.location import gazetteer
from leadengine.web.services import catalogue

load_taxonomy()
gazetteer()
catalogue()
