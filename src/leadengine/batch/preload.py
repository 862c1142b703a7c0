"""What a batch's shards start with (:func:`leadengine.batch.shards.prepare`): importing
this module imports the pipeline and the modules a shard would otherwise import on its
first row, and loads the data every page read consults (taxonomy, gazetteer, service
catalogue), the TLS context every client uses and the injection rules' patterns
(:func:`warm` compiles a knowledge base's keywords). The batch's process imports it before
it forks its shards, and a fork server (where the shards cannot be forked) before it
forks them, so no shard loads any of it itself.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import TYPE_CHECKING

from leadengine.knowledge.keywords import KeywordCounter
from leadengine.website.category import load_taxonomy
from leadengine.website.guard import default_ssl_context
from leadengine.website.injection import compile_rules
from leadengine.website.location import gazetteer
from leadengine.website.services import catalogue

if TYPE_CHECKING:
    from leadengine.retrieval.knowledge_base import KnowledgeBase

#: The pipeline, and the modules a shard would import on first use: of the pipeline (the
#: outreach angle's fallback, the crawl's link picking, the page readers) and of the
#: libraries below it (httpx's asynchronous network backend, on its first request). A
#: library's may be missing from another version of it.
MODULES = ("leadengine.batch", "leadengine.judgement.evaluators.heuristic",
           "leadengine.website.crawl", "leadengine.website.readers", "anyio._backends._asyncio")

for _name in MODULES:
    with contextlib.suppress(ImportError):
        importlib.import_module(_name)
load_taxonomy()
gazetteer()
catalogue()
default_ssl_context()
compile_rules()  # the injection rules' patterns, compiled by a page's first search



def warm(kb: KnowledgeBase) -> None:
    """The regexes of ``kb``'s keywords and of the injection rules, compiled now, as a
    page's first read would (about 20 ms in each shard before its first LLM request,
    that the shards forked from here no longer spend)."""
    compile_rules()
    KeywordCounter.for_rules(kb.rules)
