"""What a postal address looks like, per country and script: the text patterns that
:mod:`leadengine.website.location` reads addresses with.

Text is *folded* first (:func:`~leadengine.website.location.text_folding.fold`) and its address
features (street words, house numbers, postcodes) are those of
:mod:`leadengine.website.location.address_features`.

An address is read from *candidates*: runs of consecutive short text nodes (an address
split by ``<br>``, ``<p>``, ``<span>`` or ``<li>``), the nodes after an "Address" label,
and ``<address>`` elements. Each node is classified once (:func:`classify`); a window of
nodes is scored from its nodes' features, so a page of thousands of nodes costs one
regex pass per node.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from leadengine.website.location.address_features import (
    PHONE,
    TIME,
    TIME_SPAN,
    Postcode,
    find_postcodes,
    has_area_pair,
    has_house_number,
    has_road,
    street_count,
)
from leadengine.website.location.text_folding import WORD, fold, latin_key, script_key

__all__ = [
    "LABEL",
    "MAX_NODE",
    "STOP",
    "Candidate",
    "Node",
    "classify",
    "fold",
    "is_street_address",
    "latin_key",
    "node_candidates",
    "prose_penalty",
    "rejected",
    "script_key",
    "split_node",
]

# --- labels, stops and rejections ------------------------------------------------------

#: An "Address" label at the start of a node; what follows it is the address.
#: The words of an address label (lower case).
LABEL_WORDS = (r"address(?:es)?|addr\.?|location|our location|find us|visit us|locate us|"
               r"where to find us|ที่อยู่|ที่ตั้ง|လိပ်စာ|住所|所在地|アクセス|주소|소재지|地址|dia chi|"
               r"العنوان|আমাদের ঠিকানা|ঠিকানা|पता|alamat|direccion|adresse|indirizzo|endereco")
LABEL = re.compile(
    r"^(?:(?:our|the|business|office|shop|store|clinic|head office|registered|mailing|"
    r"postal|street|physical|visit|main|company|hotel|restaurant)\s+)*"
    rf"(?P<word>{LABEL_WORDS})"
    r"(?![a-z])\s*[:：\-.]?\s*")
#: The labels that say "address" (not "location", "find us", "access"): what follows one
#: is the address as the site writes it.
_ADDRESS_WORD = re.compile(r"address(?:es)?|addr\.?|ที่อยู่|လိပ်စာ|住所|주소|地址|dia chi|"
                           r"العنوان|আমাদের ঠিকানা|ঠিকানা|पता|alamat|direccion|adresse|"
                           r"indirizzo|endereco")
#: A node that ends an address: the label of another contact detail, a call to action.
STOP = re.compile(
    r"^(?:tel|telephone|phone|call|mobile|mob|cell|fax|e-?mail|hours|opening|open|working|"
    r"business hours|office hours|contact|whatsapp|line|facebook|website|web|follow|"
    r"get directions|directions|view (?:on )?map|map|book|send|subscribe|"
    r"โทร|อีเมล|เวลา|เปิด|ติดต่อ|ဖုန်း|အီးမေးလ်|ဆက်သွယ်|電話|営業|診療|メール|"
    r"전화|이메일|영업|진료|팩스|휴대폰|핸드폰|电话|邮箱|营业|携帯|dien thoai|ফোন|মোবাইল|ইমেইল|"
    r"সময়|फ़ोन|फोन|मोबाइल|ईमेल|มือถือ|"
    r"الهاتف|هاتف)(?![a-z])")
_COPYRIGHT = re.compile(r"©|\(c\)|copyright|all rights reserved|all right reserved|"
                        r"สงวนลิขสิทธิ์|版权所有|著作権|무단|저작권|কপিরাইট")
_DAY = (r"\b(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?|daily|everyday|"
        r"weekdays?|weekends?)\b|จันทร์|อังคาร|พุธ|พฤหัส|ศุกร์|เสาร์|อาทิตย์|ทุกวัน|တနင်္လာ|"
        r"[月火水木金土日]曜|平日|土日|[월화수목금토일]요일|평일|주말|শনি|রবি|সোম")
_HOURS = re.compile(rf"(?:{_DAY}).*(?:{TIME})|(?:{TIME}).*(?:{_DAY})|"
                    rf"(?:{TIME})\s*(?:-|to|~|ถึง|～)\s*(?:{TIME})")
_HOURS_WORDS = re.compile(r"hours|24/7|เวลาทำการ|เวลาเปิด|営業時間|診療時間|영업시간|진료시간|"
                          r"营业时间")
_PRICE = re.compile(r"[$€£¥₹฿₩₫]\s?\d|\d\s?(?:[$€£¥₹฿₩₫]|baht|บาท|thb|usd|kyats?|ks|ကျပ်|円|원|元|"
                    r"rs\.?|inr|vnd|sgd|myr|rm|taka|৳)(?![a-z])|(?:price|usd|thb|rs)\s?\d")
#: How to get there, not where: "2 min walk from exit C5", 徒歩2分, 출구.
_DIRECTIONS = re.compile(r"徒歩|出口|步行|도보|출구|ทางออก|เดินจาก|min walk|minutes? walk|"
                         r"walking distance|minutes? from|mins? from|exit \d")
_NAV_WORDS = frozenset("home about services service contact blog menu gallery login sign "
                       "cart shop news faq careers privacy policy terms us our team "
                       "pricing book now more read".split())
_EMAIL_URL = re.compile(r"\S+@\S+|https?://\S+|www\.\S+")
_ONLY_JOINER = re.compile(r"^[\W_]*$")

# --- nodes ----------------------------------------------------------------------------

_SEPARATORS = re.compile(r"\s+[|·•]\s+|\s*\|\s*")
#: Characters of a node read as part of an address; a longer one is prose.
MAX_NODE = 250
_SENTENCE_WORDS = frozenset("we our you your is are was were the and to for with from "
                            "located welcome easily minutes away reach visit open call "
                            "book serving best just can will please us walk".split())


@dataclass
class Node:
    """One text node (or one part of a node split at " | ") and its features."""

    text: str
    folded: str
    kind: str = "other"  # joiner, stop, label, feature, weak, other
    label_rest: str = ""
    #: A label that says "address" (:data:`_ADDRESS_WORD`), not only "location".
    address_label: bool = False
    street: int = 0
    number: bool = False
    postcodes: list[Postcode] = field(default_factory=list)
    penalty: int = 0


def split_node(text: str) -> list[str]:
    """A node's parts: footers join an address to the copyright line with " | ", and an
    address runs on into its phone ("..., Bahan Township. Tel: 09 ..." ,
    "...မြို့နယ်။ ဖုန်း - ၀၉-..."): the phone's label begins a part of its own."""
    text = " ".join(text.split())
    parts = _SEPARATORS.split(text) if "|" in text or "·" in text or "•" in text else [text]
    return [piece for part in parts for piece in _INLINE_PHONE.split(part) if piece]


_PHONE_WORDS = (r"telephone|tel|phone|call|mobile|mob|cell|fax|hotline|โทรศัพท์|โทร|มือถือ|"
                r"ဖုန်းနံပါတ်|ဖုန်း|電話|전화|电话|điện thoại|ফোন|फोन|هاتف")
_NUMBER_START = ("+(0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\u0e50-\u0e59"
                 "\u1040-\u1049")
#: Where a phone's label starts inside a node: after a space, the label (a word of its
#: own), maybe a dot, a colon or a dash, then the number.
_INLINE_PHONE = re.compile(
    rf"(?<=\S)\s+(?=(?:{_PHONE_WORDS})(?![^\W\d_])\.?\s*[:：\-–]?\s*[{_NUMBER_START}])", re.I)


_ICON = re.compile(r"^[^\w(〒#]+")
#: An aside in brackets right after a label: "Address (for taxi drivers):".
_ASIDE = re.compile(r"^\s*[(（][^)）]{0,60}[)）]")
#: "Austin, TX": a town and a region's abbreviation, a place to look a city up in.
_TOWN_REGION = re.compile(r"[^\W\d][^\W\d .'-]*(?:[ .'-]+[^\W\d]+){0,3}, [A-Z]{2,3}")
_PHONE_ONLY = re.compile(r"[\d\s()+.\-/]{7,}")
_HAS_DIGIT = re.compile(r"\d")


def classify(text: str) -> Node:
    """``text`` (one cleaned node) with its kind and address features: one fold, one
    tokenisation and a few anchored matches for most nodes; the postcode and number
    patterns only for nodes with digits and address words."""
    folded = fold(text)
    node = Node(text, folded)
    if _ONLY_JOINER.match(folded):
        node.kind = "joiner"
        return node
    if _PHONE_ONLY.fullmatch(folded) or len(folded) > MAX_NODE:
        node.kind = "stop" if len(folded) <= MAX_NODE else "other"
        return node
    icon = len(folded) - len(_ICON.sub("", folded, count=1))  # "📍 Address", "📞 Call"
    label = LABEL.match(folded, icon)
    if label and (label.end() == len(folded) or len(folded) - label.end() >= 4):
        node.kind = "label"
        node.address_label = _ADDRESS_WORD.fullmatch(label.group("word")) is not None
        node.label_rest = _ASIDE.sub("", text[label.end():]).strip(" :：-")
        folded = node.folded = fold(node.label_rest)
    elif STOP.match(folded, icon):
        node.kind = "stop"
        return node
    words = WORD.findall(folded)
    node.street = street_count(folded, words)
    digit = _HAS_DIGIT.search(folded) is not None
    short = len(folded) <= 60 and len(words) <= 6
    if node.kind != "label" and not digit and not node.street:
        if short and (_COPYRIGHT.search(folded) or _HOURS_WORDS.search(folded)):
            node.kind = "stop"
        elif short and _TOWN_REGION.fullmatch(text):
            node.kind = "feature"
        elif short:
            node.kind = "weak"
        return node
    if node.kind != "label" and rejected(folded):
        node.kind = "stop"
        return node
    if digit:
        node.postcodes = find_postcodes(folded)
    if node.kind != "label" and not node.street and not node.postcodes and not short:
        return node  # digits in prose: no address line
    node.number = digit and has_house_number(folded, node.postcodes)
    node.penalty = prose_penalty(text, words)
    if node.kind == "label":
        return node
    if (node.street and (node.number or node.postcodes)) or node.street >= 2 or any(
            p.kind != "d4" for p in node.postcodes):
        node.kind = "feature"
    elif short and not node.penalty:
        node.kind = "weak"
    return node


_SENTENCE_END = re.compile(r"[.!?।。！？]\s*$")


def prose_penalty(text: str, words: Sequence[str]) -> int:
    """How much ``text`` reads as prose rather than an address line: English function
    words, a sentence's full stop (in any script), many words."""
    penalty = max(0, sum(w in _SENTENCE_WORDS for w in words) - 1)
    spaced = len(text.split())
    if spaced >= 6 and _SENTENCE_END.search(text) and not text.rstrip().endswith(
            (" st.", " rd.", " ave.", " no.", " blvd.", " dist.")):
        penalty += 2
    if spaced > 14:
        penalty += (spaced - 14) // 4 + 1
    return penalty


_DIGITS = re.compile(r"\d")
_LETTERS = re.compile(r"[^\W\d_]")


#: A template's address, never filled in: "123 Clinic Street, City, Country", "Your
#: address here", "Street name 123, City, State, Zip", lorem ipsum.
TEMPLATE_ADDRESS = re.compile(
    r"\bcity,? (?:state|country|zip)\b|\b(?:your|company|business|street) (?:address|name)\b|"
    r"\baddress (?:here|line)\b|\blorem\b|"
    r"\bzip ?code\b|\bpostal code\b|\byour city\b")


def rejected(folded: str) -> bool:
    """Copyright lines, opening hours, prices, phone/e-mail-only lines, navigation, a
    template's address."""
    if _COPYRIGHT.search(folded) or _HOURS_WORDS.search(folded) or _PRICE.search(folded) \
            or "»" in folded or " > " in folded or TEMPLATE_ADDRESS.search(folded):
        return True
    digits = len(_DIGITS.findall(folded))
    if digits and TIME_SPAN.search(folded) and _HOURS.search(folded):
        return True
    if digits >= 7 and "〒" not in folded and len(
            _LETTERS.findall(_EMAIL_URL.sub(" ", PHONE.sub(" ", folded)))) < 3:
        return True
    if _DIRECTIONS.search(folded):
        return True
    if digits:
        return False
    words = WORD.findall(folded)
    return len(words) >= 2 and sum(w in _NAV_WORDS for w in words) * 2 >= len(words)


# --- candidates -----------------------------------------------------------------------


@dataclass
class Candidate:
    """Text that may be an address, with its score from the text patterns alone."""

    text: str
    source: str  # jsonld, element, label, text
    order: int
    score: float
    street: int
    number: bool
    postcode: bool
    #: Read after a label that says "address".
    labelled: bool = False


_MAX_WINDOW = 5
#: How many nodes an address spans at most (a window), for callers choosing nodes.
MAX_WINDOW = _MAX_WINDOW
#: Score of where a candidate was read: ``<address>`` markup is the site saying so.
_SOURCE_BONUS = {"jsonld": 5.0, "element": 5.0, "label": 4.0}
_MAX_RUN = 8
_MAX_LABEL_NODES = 6


def node_candidates(nodes: Sequence[Node], order: int, source: str = "text",
                    limit: int = 300, max_run: int = _MAX_RUN) -> list[Candidate]:
    """Candidates from classified nodes: what follows each label, runs of consecutive
    address-like nodes with a node with features, and their windows of up to
    :data:`_MAX_WINDOW` nodes (a run is cut at ``max_run`` nodes)."""
    found: list[Candidate] = []
    run: list[Node] = []

    def flush() -> None:
        if any(n.kind == "feature" for n in run):
            found.extend(_windows(run, order, source))
            if len(run) > _MAX_WINDOW and sum(len(n.text) for n in run) <= MAX_NODE:
                found.append(_window(run, order, source))
        run.clear()

    for index, node in enumerate(nodes):
        if len(found) >= limit:
            break
        if node.kind == "joiner":
            continue
        if node.kind == "label":
            if run:
                flush()
            following = _after_label(nodes, index)
            if following:
                found.append(_window(following, order + index, "label",
                                     node.address_label))
            continue
        if node.kind in ("feature", "weak"):
            run.append(node)
            if len(run) >= max_run:
                flush()
        elif run:
            flush()
    flush()
    return found[:limit]


def _after_label(nodes: Sequence[Node], index: int) -> list[Node]:
    """The label's own rest and the nodes after it, up to the next label or contact detail
    (with a rest, only nodes that look like more of an address). Once an address line is
    taken, a line without digits is taken only before another address line."""
    label = nodes[index]
    taken: list[Node] = [label] if label.label_rest else []
    chars = len(label.label_rest)
    following = [n for n in nodes[index + 1:index + 1 + 2 * _MAX_LABEL_NODES]
                 if n.kind != "joiner"]
    for position, node in enumerate(following):
        if node.kind in ("stop", "label") or len(node.text) > 150 or (
                label.label_rest and node.kind not in ("feature", "weak")):
            break
        if any(n.kind == "feature" or n.street for n in taken) and node.kind != "feature" \
                and not _HAS_DIGIT.search(node.folded):
            after = following[position + 1] if position + 1 < len(following) else None
            if after is None or after.kind != "feature":
                break
        chars += len(node.text)
        if chars > MAX_NODE or len(taken) >= _MAX_LABEL_NODES:
            break
        taken.append(node)
    return taken


def _windows(run: list[Node], order: int, source: str) -> list[Candidate]:
    windows = []
    for start in range(len(run)):
        for end in range(start + 1, min(start + _MAX_WINDOW, len(run)) + 1):
            part = run[start:end]
            if sum(len(n.text) for n in part) > MAX_NODE:
                break
            if any(n.kind == "feature" for n in part):
                windows.append(_window(part, order + start, source))
    return windows


def _window(part: Sequence[Node], order: int, source: str, labelled: bool = False
            ) -> Candidate:
    texts = [n.label_rest if n.kind == "label" else n.text for n in part]
    text = ", ".join(t.rstrip(" ,;") for t in texts if t.strip(" ,;"))
    street = sum(n.street for n in part)
    number = any(n.number for n in part)
    postcode = any(p.kind != "d4" for n in part for p in n.postcodes) or (
        bool(part[-1].postcodes) and part[-1].postcodes[-1].end >= len(part[-1].folded) - 2)
    penalty = sum(n.penalty for n in part)
    idle = sum(1 for n in part if not n.street and not _HAS_DIGIT.search(n.folded))
    score = _SOURCE_BONUS.get(source, 0.0) + 2 * min(street, 3) + 2 * number \
        + 3 * postcode - penalty - (2 if len(text) > 180 else 0) - 0.5 * idle
    return Candidate(text, source, order, score, street, number, postcode, labelled)


#: Separators of an address's parts ("Estate, Road, City").
_PARTS = re.compile(r"[,،、၊]")


def is_street_address(candidate: Candidate, has_place: bool, has_postcode: bool = False
                      ) -> bool:
    """Whether a candidate (with a city or region, ``has_place``, and a postcode of the
    country, ``has_postcode``) is a street address, not only a town's:

    - a house or building number, with a street or area word or with a postcode and a
      place ("12 Moo 3, Tambon Nong Prue"; "Chiang Mai 50200" alone is not one);
    - without a number, a street named where the site says "this is the address" (after
      an "Address" label, not "Location"; in ``<address>`` markup; a JSON-LD address
      string), written with a place, a postcode or in several parts ("Victory Estate,
      Airport Road, Port Harcourt");
    - without a number, an area of a city and the district it is in (a Thai sub-district
      and district, a Myanmar ward and township, a Korean 구 and 동) with a place or a
      postcode.
    """
    if candidate.number:
        return candidate.street > 0 or (candidate.postcode and has_place)
    if not candidate.street:
        return False
    folded = fold(candidate.text)
    placed = has_place or has_postcode
    said = candidate.labelled or candidate.source in ("element", "jsonld")
    if said and has_road(folded) and (placed or _PARTS.search(candidate.text)):
        return True
    return placed and has_area_pair(folded)
