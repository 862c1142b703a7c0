"""The team's knowledge: every markdown file of the knowledge directory, as documents and
sections, and the rules their front matter holds.

* :mod:`~leadengine.knowledge.base`: :class:`Knowledge` (the loaded files: documents,
  sections, rules, a version), :class:`Document`, :class:`Section`;
* :mod:`~leadengine.knowledge.rules`: the front matter's rules (rubric, angles,
  industries, exclusions, outreach templates), validated;
* :mod:`~leadengine.knowledge.front_matter`: rewriting one front-matter section (the
  workspace's knowledge forms);
* :mod:`~leadengine.knowledge.keywords`: the keyword counter the rules' conditions use;
* :mod:`~leadengine.knowledge.signal_names`: the signals rules may test, with labels;
* :mod:`~leadengine.knowledge.yaml_data` and :mod:`~leadengine.knowledge.text_scan`:
  reading the team's YAML data safely, and scanning text for many phrases at once.

It never imports :mod:`leadengine.retrieval`: the index reads the knowledge, and
:class:`leadengine.KnowledgeBase` (the knowledge with ``retrieve``) is retrieval's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leadengine.exports import lazy_exports

if TYPE_CHECKING:
    from leadengine.knowledge.asked import run_question, with_questions
    from leadengine.knowledge.base import (
        SEMANTIC_MAX_PASSAGES,
        Document,
        Knowledge,
        Section,
        default_knowledge_dir,
        parse_document,
    )
    from leadengine.knowledge.front_matter import replace_section, section_value
    from leadengine.knowledge.keywords import KeywordCounter
    from leadengine.knowledge.rules import DEFAULT_GEOGRAPHY, Question, Rubric, Rules
    from leadengine.knowledge.signal_names import CATEGORY_LABELS, category_label

#: Public name -> the module that defines it (imported on first use).
_EXPORTS = {
    "SEMANTIC_MAX_PASSAGES": "leadengine.knowledge.base",
    "Document": "leadengine.knowledge.base",
    "Knowledge": "leadengine.knowledge.base",
    "Section": "leadengine.knowledge.base",
    "default_knowledge_dir": "leadengine.knowledge.base",
    "parse_document": "leadengine.knowledge.base",
    "Rules": "leadengine.knowledge.rules",
    "Rubric": "leadengine.knowledge.rules",
    "DEFAULT_GEOGRAPHY": "leadengine.knowledge.rules",
    "replace_section": "leadengine.knowledge.front_matter",
    "run_question": "leadengine.knowledge.asked",
    "with_questions": "leadengine.knowledge.asked",
    "Question": "leadengine.knowledge.rules",
    "section_value": "leadengine.knowledge.front_matter",
    "KeywordCounter": "leadengine.knowledge.keywords",
    "CATEGORY_LABELS": "leadengine.knowledge.signal_names",
    "category_label": "leadengine.knowledge.signal_names",
}

__all__ = [
    "CATEGORY_LABELS", "DEFAULT_GEOGRAPHY", "SEMANTIC_MAX_PASSAGES", "Document",
    "KeywordCounter", "Knowledge", "Question", "Rubric", "Rules", "Section",
    "category_label", "default_knowledge_dir", "parse_document", "replace_section",
    "run_question", "section_value", "with_questions",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
