"""How well the offline answering does on the hand-labelled question sets, each written
by another hand (a helper session that never saw the code) and split by site into dev
and held-out before any tuning:

* ``a``: ``tests/fixtures/questions``, 30 sites, 194 labels, 14 questions;
* ``b``: ``tests/fixtures/questions_b``, 18 sites, 162 labels, 16 questions (12 new);
* ``c``: ``tests/fixtures/questions_c``, 18 sites, 164 labels, 17 questions (12 new);
* ``d``, ``e``: ``tests/fixtures/questions_d``, ``questions_e``, 18 sites and 162 labels
  each, 20 questions each (10 new each), written after the answerer was tuned on the
  dev parts of a, b and c;
* ``f``, ``g``: ``tests/fixtures/questions_f``, ``questions_g``, 18 sites and 162 labels
  each, about 70 % on 13 common questions, written after the work on d and e;
* ``h``: ``tests/fixtures/questions_h``, 18 sites, 160 labels, the 11 most common
  questions only, written after all the work above and never tuned on (both splits);
* ``i``, ``j``, ``k``: ``tests/fixtures/questions_i``, ``_j``, ``_k``, 18 sites each (162,
  162, 160 labels), written after all the work above: ``i`` common questions and six of
  its own, ``j`` the same facts asked in other words ("Can I pay with a Visa or
  Mastercard?", "Can I just drop in without booking?"), ``k`` the 11 most common
  questions on new industries;
* ``l``, ``m``: ``tests/fixtures/questions_l``, ``_m``, 18 sites each (160, 159 labels),
  written while the work on i, j, k went on and never tuned on (both splits): ``l`` a
  team's own questions in its own words, ``m`` the 11 most common and three of its own;
* ``n``: ``tests/fixtures/questions_n``, 18 sites, 161 labels, a team's own questions in
  its own words again, written after the work on l and m and never tuned on;
* ``o``: ``tests/fixtures/questions_o``, 18 sites, 159 labels, the same once more (long,
  casual asks), written after the work on n and never tuned on;
* ``p``: ``tests/fixtures/questions_p``, 18 sites, 157 labels, common facts and five of its
  own, in its own words, written after the work on o and never tuned on;
* ``q``: ``tests/fixtures/questions_q``, 18 sites, 162 labels, the same kind as p, written
  after the work on p and never tuned on;
* ``r``, ``s``, ``t``: ``tests/fixtures/questions_r``, ``_s``, ``_t``, 18 sites each (162,
  161, 164 labels): the common facts in their own words and four of their own; a busy
  team's short, informal asks; a campaign team's questions beyond the usual. Each part
  was run before any work on it; their dev parts were then tuned on, held-out never;
* ``u``: ``tests/fixtures/questions_u``, 18 sites, the kind of r, run once after the work
  on r, s, t; its dev part tuned on later;
* ``v``, ``w``, ``x``: 18 sites each (189, 172, 167 labels): the common facts in their own
  words and four of their own; a busy team's short asks and six campaign questions; long
  pages with reviews, FAQs and past or temporary changes;
* ``y``, ``z``, ``aa``: 18 sites each (171, 171, 174 labels): the common facts asked as a
  rep's spreadsheet headers ("Cust. parking (car/moto)?"); as a manager's full sentences
  ("Could you find out whether..."); on mixed-language pages;
* ``ab``, ``ac``, ``ad``: 18 sites each (175, 189, 187 labels), the common facts asked as
  different members of one team would;
* ``ae``, ``af``, ``ag``: 18 sites each (187, 168, 166 labels), the same kind, run once
  after the work on ab, ac, ad, their dev parts then tuned on;
* ``ah``, ``ai``, ``aj``: 18 sites each (174, 169, 170 labels), the same kind, run once
  after the work on ae, af, ag, their dev parts then tuned on;
* ``ak``, ``al``, ``am``: 18 sites each (163, 167, 172 labels), the same kind, run once
  after the work on ah, ai, aj, their dev parts then tuned on;
* ``an``, ``ao``, ``ap``: 18 sites each, the same kind, run once (both parts) after the
  work on ak, al, am; their dev parts tuned on later;
* ``aq``, ``ar``, ``as``: 18 sites each (203, 189, 193 labels): the common facts asked as a
  Thai rep writes English, as a CRM's column names ("Open Sun?"), as a campaign brief's
  sentences ("For the card-terminal campaign, ...");
* ``at``, ``au``, ``av``: 18 sites each (180, 211, 193 labels): as quick chat messages ("r
  they open on sun?"), as a Burmese-speaking rep writes English, as a procurement
  questionnaire ("Does the establishment accept ...?");
* ``aw``, ``ax``, ``ay``: 18 sites each (207, 210, 204 labels): as a lead audit's checklist
  statements ("Confirm: accepts card payments"), four asks the other way round and
  labelled as asked ("Closed on Sundays?", "Are cards refused there?"), as a Notion
  base's property names ("💳 Takes cards?");
* ``az``, ``ba``, ``bb``: 18 sites each (201, 209, 195 labels): the common facts asked as
  different members of one team would, written after all the work above and run once
  (both parts); their dev parts tuned on at the next stop;
* ``bc``, ``bd``, ``be``: 18 sites each (239, 229, 217 labels): the same kind, new
  industries, three set-specific questions each (pets, home visits, instalments...),
  run once, their dev parts then tuned on;
* ``bf``, ``bg``, ``bh``: 18 sites each (209, 232, 206 labels): the same kind, written
  while the work on ``bc``-``be`` went on, run once after it, their dev parts then
  tuned on;
* ``bi``, ``bj``, ``bk``: 18 sites each (211, 223, 213 labels), the same kind, run once
  after the work on ``bf``-``bh``, their dev parts then tuned on;
* ``bl``, ``bm``, ``bn``: 18 sites each (210, 206, 232 labels), the same kind, run once
  after the work on ``bi``-``bk``, their dev parts then tuned on.

Each set was committed before any code ran on it; each part was run once at first sight,
its dev part then tuned on, its held-out part never.

    python -m bench.eval_questions                     # every set, both splits
    python -m bench.eval_questions --set b --split dev --misses

A yes/no, number or choice answer is right when it equals the label; a text answer
when it holds the label's text (or both are unknown). Evidence is right when the
sentence quoted holds the label's evidence. The held-out split is reported, never
tuned on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from leadengine.config import Settings
from leadengine.judgement.questions import answer_all
from leadengine.knowledge import Question
from leadengine.website import load_site
from tests.fakes.site_server import SiteServer

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
SETS = {"a": FIXTURES / "questions", "b": FIXTURES / "questions_b",
        "c": FIXTURES / "questions_c", "d": FIXTURES / "questions_d",
        "e": FIXTURES / "questions_e", "f": FIXTURES / "questions_f",
        "g": FIXTURES / "questions_g", "h": FIXTURES / "questions_h",
        "i": FIXTURES / "questions_i", "j": FIXTURES / "questions_j",
        "k": FIXTURES / "questions_k", "l": FIXTURES / "questions_l",
        "m": FIXTURES / "questions_m", "n": FIXTURES / "questions_n",
        "o": FIXTURES / "questions_o", "p": FIXTURES / "questions_p",
        "q": FIXTURES / "questions_q", "r": FIXTURES / "questions_r",
        "s": FIXTURES / "questions_s", "t": FIXTURES / "questions_t",
        "u": FIXTURES / "questions_u", "v": FIXTURES / "questions_v",
        "w": FIXTURES / "questions_w", "x": FIXTURES / "questions_x",
        "y": FIXTURES / "questions_y", "z": FIXTURES / "questions_z",
        "aa": FIXTURES / "questions_aa", "ab": FIXTURES / "questions_ab",
        "ac": FIXTURES / "questions_ac", "ad": FIXTURES / "questions_ad",
        "ae": FIXTURES / "questions_ae", "af": FIXTURES / "questions_af",
        "ag": FIXTURES / "questions_ag", "ah": FIXTURES / "questions_ah",
        "ai": FIXTURES / "questions_ai", "aj": FIXTURES / "questions_aj",
        "ak": FIXTURES / "questions_ak", "al": FIXTURES / "questions_al",
        "am": FIXTURES / "questions_am", "an": FIXTURES / "questions_an",
        "ao": FIXTURES / "questions_ao", "ap": FIXTURES / "questions_ap",
        "aq": FIXTURES / "questions_aq", "ar": FIXTURES / "questions_ar",
        "as": FIXTURES / "questions_as", "at": FIXTURES / "questions_at",
        "au": FIXTURES / "questions_au", "av": FIXTURES / "questions_av",
        "aw": FIXTURES / "questions_aw", "ax": FIXTURES / "questions_ax",
        "ay": FIXTURES / "questions_ay", "az": FIXTURES / "questions_az",
        "ba": FIXTURES / "questions_ba", "bb": FIXTURES / "questions_bb",
        "bc": FIXTURES / "questions_bc", "bd": FIXTURES / "questions_bd",
        "be": FIXTURES / "questions_be", "bf": FIXTURES / "questions_bf",
        "bg": FIXTURES / "questions_bg", "bh": FIXTURES / "questions_bh",
        "bi": FIXTURES / "questions_bi", "bj": FIXTURES / "questions_bj",
        "bk": FIXTURES / "questions_bk", "bl": FIXTURES / "questions_bl",
        "bm": FIXTURES / "questions_bm", "bn": FIXTURES / "questions_bn"}
_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙၀၁၂၃၄၅၆၇၈၉", "01234567890123456789")


def _plain(text: str) -> str:
    return " ".join(str(text).translate(_DIGITS).casefold().split())


def right(question: dict[str, Any], expected: Any, value: Any) -> bool:
    if question["type"] == "text" and expected != "unknown" and value != "unknown":
        return _plain(expected) in _plain(value)
    return _plain(str(expected)) == _plain(str(value))


def language(here: Path, site: str) -> str:
    text = (here / "sites" / site / "index.html").read_text(encoding="utf-8")
    if re.search("[\u1000-\u109f]", text):
        return "my"
    return "th" if re.search("[\u0e00-\u0e7f]", text) else "en"


async def answers_of(base: str, site: str, labels: list[dict[str, Any]]) -> dict[str, Any]:
    settings = Settings(max_pages=4, respect_robots=False, allow_private=True,
                        host_delay=0.0)
    loaded = await load_site(f"{base}/{site}/index.html", settings)
    questions = [Question(**label["question"]) for label in labels]
    return answer_all(questions, loaded.passages)


def evaluate(split: str | None, here: Path = SETS["a"]) -> dict[str, Any]:
    labels = [json.loads(line) for line in (here / "labels.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    by_site: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for label in labels:
        if split is None or label["split"] == split:
            by_site[label["site"]].append(label)
    scores: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    with SiteServer(here / "sites") as server:  # subpages are read over HTTP, as live
        base = server.url("").rstrip("/")
        found_by_site = {site: asyncio.run(answers_of(base, site, site_labels))
                         for site, site_labels in sorted(by_site.items())}
    for site, site_labels in sorted(by_site.items()):
        found = found_by_site[site]
        lang = language(here, site)
        for label in site_labels:
            question, expected = label["question"], label["expected"]
            answer = found[question["id"]]
            ok = right(question, expected["value"], answer.value)
            keys = ["all", f"lang:{lang}", f"type:{question['type']}",
                    f"expected:{expected['value'] if question['type'] == 'yes_no' else 'n/a'}"]
            if question["type"] == "yes_no":
                keys.append("yes_no")
                if lang != "en" and expected["value"] != "unknown":
                    keys.append("yes_no cross-lingual (stated)")
            for key in keys:
                scores[key][0] += ok
                scores[key][1] += 1
            if ok and expected["value"] != "unknown" and expected["evidence"]:
                quoted = _plain(expected["evidence"]) in _plain(answer.evidence)
                scores["evidence quoted"][0] += quoted
                scores["evidence quoted"][1] += 1
            if not ok:
                misses.append(f"{site} {question['id']}: expected {expected['value']!r}, "
                              f"got {answer.value!r} ({answer.evidence[:90]!r})")
    return {"scores": {k: (v[0], v[1], round(v[0] / v[1], 3)) for k, v in sorted(
        scores.items())}, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "heldout"], default=None)
    parser.add_argument("--set", choices=sorted(SETS), default=None,
                        help="one labelled set (default: every one, and their sum)")
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    for split in ([args.split] if args.split else ["dev", "heldout"]):
        total: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for name in [args.set] if args.set else sorted(SETS):
            result = evaluate(split, SETS[name])
            print(f"== set {name}, {split}")
            for key, (hit, count, share) in result["scores"].items():
                print(f"  {key:<34} {hit:>4}/{count:<4} {share:.3f}")
                total[key][0] += hit
                total[key][1] += count
            if args.misses:
                for line in result["misses"]:
                    print("   miss:", line)
        if not args.set:
            print(f"== every set, {split}")
            for key, (hit, count) in sorted(total.items()):
                print(f"  {key:<34} {hit:>4}/{count:<4} {hit / count:.3f}")


if __name__ == "__main__":
    main()
