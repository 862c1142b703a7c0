"""What is true of a site, from what it says: the facts every evaluator judges from, the
score the rules give them, and how sure the engine is.

* :mod:`~leadengine.facts.site_facts`: :class:`SiteFacts` (computed once per site by
  ``site_facts``), and :class:`Location`;
* :mod:`~leadengine.facts.location` and :mod:`~leadengine.facts.size`: where the
  business is, and how big;
* :mod:`~leadengine.facts.scoring`: the rubric's fit score and its explanation, the
  caps, the first angle whose conditions hold;
* :mod:`~leadengine.facts.confidence`: how much of the judgement the facts support.

It imports no judgement module: the evaluators read the facts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leadengine.exports import lazy_exports

if TYPE_CHECKING:
    from leadengine.facts.confidence import judge_confidence
    from leadengine.facts.scoring import explain_score, fact_score, first_angle, fit_caps
    from leadengine.facts.site_facts import Location, SiteFacts

#: Public name -> the module that defines it (imported on first use).
_EXPORTS = {
    "Location": "leadengine.facts.site_facts",
    "SiteFacts": "leadengine.facts.site_facts",
    "explain_score": "leadengine.facts.scoring",
    "fact_score": "leadengine.facts.scoring",
    "first_angle": "leadengine.facts.scoring",
    "fit_caps": "leadengine.facts.scoring",
    "judge_confidence": "leadengine.facts.confidence",
}

__all__ = [
    "Location", "SiteFacts", "explain_score", "fact_score", "first_angle", "fit_caps",
    "judge_confidence"
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
