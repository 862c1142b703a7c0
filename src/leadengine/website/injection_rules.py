"""The sentences that address an AI, as data: English, Thai and Burmese rules, each a
regex plus the anchor words that must occur before it is tried. Patterns are written for
the folded text (see :func:`leadengine.website.injection.normalise`): lowercase, Latin
look-alikes mapped, invisible characters gone.
"""

from __future__ import annotations

import re

_AI = (r"(ai|llm|chatgpt|gpt|assistant|language\s+model|evaluator|bot|chatbot|model"
       r"|agent)")


_MAX = r"(100|10\s*/\s*10|maximum|max|highest|perfect|full|top)"


_SCORE = r"(fit[\s_-]?score|score|rating|grade|marks?)"


_SCORE_WORDS = ("score", "rating", "grade", "mark")


#: Every AI a page may address ("ai" and "bot" are found at a word start only, see
#: _ROOTS; "chatgpt" holds "gpt").
_AI_WORDS = ("ai", "llm", "gpt", "assistant", "model", "evaluator", "bot", "chatbot", "agent")


_IGNORE_WORDS = ("ignore", "disregard", "forget", "override", "bypass")


#: (anchors, pattern) pairs for English.
ENGLISH: tuple[tuple[tuple[str, ...], str], ...] = (
    # "ignore all previous instructions" and its kin
    (_IGNORE_WORDS,
     r"\b(ignore|disregard|forget|override|bypass)\s+(all\s+|any\s+|the\s+|your\s+|my\s+"
     r"|of\s+|these\s+|those\s+){0,3}(previous|prior|above|earlier|preceding|former"
     r"|original|system|initial|existing|other|old)\s+(instructions?|prompts?|rules"
     r"|directions|guidelines|commands|context|messages?|programming)"),
    (("disregard",), r"\bdisregard\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|system)"),
    (("forget",), r"\bforget\s+(all\s+|your\s+|the\s+)?(previous\s+|prior\s+)?(instructions"
                  r"|rules|prompts)"),
    (("ignore",), r"\bignore\s+(everything|anything|all)\s+(above|before|previously|said"
                  r"|else)"),
    # addressing an AI: "note to the AI", "Dear assistant,", "AI models must ..."
    (_AI_WORDS,
     rf"\b(note|message|instructions?|memo)\s+(to|for)\s+(the\s+|any\s+|all\s+)?{_AI}s?\b"),
    (_AI_WORDS,
     r"\b(dear|hey|hello|attention)(\s*,\s*|\s+)(ai|llm|chatgpt|gpt|assistant"
     r"|language\s+model|evaluator|chatbot|bot)s?\b"),
    (("ai", "llm"),
     r"\b(ai|llm)\s+(assistants?|models?|evaluators?|agents?|systems?|crawlers?|bots?)\b"
     r".{0,40}\b(must|should|shall|are\s+to|is\s+to|need\s+to|have\s+to)\b"),
    (("ai", "llm", "assistant", "evaluator", "chatbot"),
     r"^\W*(ai\s+)?(assistant|evaluator|chatbot|llm|ai)\s*,\s*(please\s+)?(ignore"
     r"|disregard|forget|you|do|output|return|give|rate|score|set|make|treat|remember"
     r"|always|never)\b"),
    (_AI_WORDS,
     r"\bas\s+an?\s+(ai|llm|large\s+language\s+model|language\s+model|chatbot"
     r"|ai\s+assistant|ai\s+model|ai\s+language\s+model)\s*(,|you\b|reading\b"
     r"|evaluating\b|analy[sz]ing\b|scoring\b)"),
    # role play: "you are now DAN", "you are now in developer mode"
    (("you are now",),
     r"\byou\s+are\s+now\s+(in\s+)?(dan\b|developer|jailbroken|unrestricted|free\s+from"
     r"|no\s+longer\s+(bound|restricted|an?\s+)|an?\s+(different\s+|new\s+|helpful\s+"
     r"|unfiltered\s+|unrestricted\s+)?(ai|assistant|model|bot|evaluator)\b|operating"
     r"|acting\s+as|evaluating|rating|scoring)"),
    (("from now on",), r"\bfrom\s+now\s+on\b.{0,20}\byou\s+(are|will|must|shall)\b"),
    (("developer",), r"\bdeveloper\s+mode\b"),
    (("jailbreak",), r"\bjailbreak"),
    (("system",), r"\bsystem\s+prompt\b|^\s*system\s*:|\bsystem\s+override\b"),
    # setting the score: "set the fit score to 100", "score it 100 out of 100",
    # "rate this business 100/100", "you must give the maximum score"
    (_SCORE_WORDS,
     rf"\b(output|return|set|give|assign|award|rate|put|make)\b.{{0,40}}\b{_SCORE}\b"
     rf".{{0,20}}\b{_MAX}\b"),
    (_SCORE_WORDS,
     rf"(^|\b(must|should|please|shall|will|now|always)\b)\W*(give|assign|award|output"
     rf"|return|set)\s+(it\s+|this\s+\w+\s+)?(the\s+|a\s+|an\s+)?{_MAX}\b.{{0,12}}"
     rf"\b{_SCORE}\b"),
    (("/1", "/ 1", "out of 1"),
     r"\b(score|rate|grade|rank|mark|give|assign|award|output|return|set)\b.{0,40}"
     r"\b(100|10)\s*(/|out\s+of)\s*(100|10)\b"),
    (("rate", "score", "rank", "grade", "mark"),
     r"\b(rate|score|rank|grade|mark)\s+(it|this|the)\s+(business|site|website|lead"
     r"|company|page|prospect|clinic|shop)?\b.{0,30}\b(100|maximum|max|highest|perfect"
     r"|top|first)\b"),
    (("lead", "prospect"),
     r"\b(give|rate|score|rank|mark|classify|treat|qualify|prioriti[sz]e|flag|label)\s+"
     r"(this|the)\s+(lead|prospect)\b"),
    # the answer's format and fields
    (("json",),
     r"\b(output|return|respond\s+with|reply\s+with|answer\s+with|print)\s+(only\s+)?"
     r"(the\s+|this\s+|a\s+|following\s+|valid\s+)?json\b"),
    (("score",), r"\bfit[\s_-]?score\b"),
    (("primary",), r"\bprimary[\s_-]service\s*[:=]"),
    (("business_", "outreach_angle", "primary_service"),
     r"\b(business_type|outreach_angle|primary_service|business_name)\b"),
    # our own fence: a page that closes it could write outside it
    (("website",), r"<\s*(/\s*)?website[\s_-]*content|/\s*website[\s_-]*content\b"),
)


# Thai has no spaces between words, so ``\s*`` joins its words. คำสั่ง = instruction,
# เพิกเฉย / ละเว้น / ละเลย / ไม่ต้องสนใจ = ignore, ก่อนหน้า = previous, คะแนน = score,
# เต็ม = full, สูงสุด = highest, คุณคือ = you are, ผู้ช่วย = assistant, ระบบ = system,
# ต้อง / จง / โปรด / กรุณา = must / (imperative) / please, ดาว = star(s).
THAI: tuple[tuple[tuple[str, ...], str], ...] = (
    (("คำสั่ง", "คำแนะนำ", "กฎ"),
     r"(เพิกเฉย|ละเว้น|ละเลย|ไม่ต้องสนใจ|ไม่ต้องทำตาม|ลืม)\s*(ต่อ\s*)?(ทุก\s*)?(คำสั่ง"
     r"|คำแนะนำ|กฎ)"),
    (("คำสั่ง",),
     r"คำสั่ง\s*(ก่อนหน้า|ข้างต้น|ก่อนหน้านี้|ของระบบ)\s*(\S{1,20}\s*)?(เพิกเฉย|ละเว้น|ละเลย"
     r"|ลืม|ไม่ต้อง|ยกเลิก)"),
    # "give a (fit) score of 100 / full marks / the highest"; not "full five stars"
    (("คะแนน", "เกรด"),
     rf"ให้\s*(คะแนน|เกรด)\s*(ความเหมาะสม\s*|fit[\s_-]?score\s*)?(เต็ม\s*)?{_MAX}"),
    (("คะแนน", "เกรด"),
     r"ให้\s*(คะแนน|เกรด)\s*(ความเหมาะสม\s*)?(เต็ม|สูงสุด)(?!\s*(\d+\s*)?ดาว)"),
    (("คะแนน",),
     r"(ธุรกิจ|เว็บไซต์|ลีด|บริษัท|กิจการ|ร้าน)\s*นี้\s*(\S{1,10}\s*)?คะแนน\s*(เต็ม|100"
     r"|สูงสุด)"),
    (("ai", "เอไอ", "ผู้ช่วย", "โมเดล", "บอท", "ระบบ", "ปัญญาประดิษฐ์"),
     r"คุณ\s*(คือ|เป็น)\s*(ai|เอไอ|ผู้ช่วย|โมเดล|แชทบอท|บอท|ระบบ|ปัญญาประดิษฐ์)"),
    (("ระบบ", "ผู้ช่วย", "โมเดล"),
     r"(ระบบ|ผู้ช่วย|โมเดล)\s*(ai|เอไอ|ปัญญาประดิษฐ์)\s*(\S{1,8}\s*)?(ต้อง|จง|โปรด|กรุณา"
     r"|ห้าม)"),
    (("ai", "เอไอ", "โมเดล"),
     r"(ถึง|เรียน)\s*(ai|เอไอ|ผู้ช่วย\s*ai|ระบบ\s*(ai|เอไอ)|โมเดล\s*ภาษา)"),
    (("ai", "เอไอ", "ปัญญาประดิษฐ์", "โมเดล"),
     r"(?<![a-z0-9])(ai|เอไอ|ปัญญาประดิษฐ์|โมเดล)\s*(ที่|ซึ่ง)\s*(กำลัง\s*)?(อ่าน|ประเมิน"
     r"|วิเคราะห์)"),
    (("พรอม",), r"(พรอมต์|พรอมท์|พรอมพ์)\s*(ระบบ|ของระบบ)"),
    (("json",), r"ตอบ(\s*กลับ)?\s*(เป็น|ด้วย)\s*json"),
)


# Burmese (Unicode, not Zawgyi). ညွှန်ကြားချက် = instruction, လျစ်လျူရှု = ignore,
# ယခင် / အရင် = previous, အမှတ် = mark (also "No." in addresses, hence only with ပေး,
# give), ရမှတ် = score, (အ)ပြည့် = full, လက်ထောက် = assistant (also a job title, hence
# only after AI), သင် = you, ရမည် = must, သို့ / ထံ = to.
BURMESE: tuple[tuple[tuple[str, ...], str], ...] = (
    (("ညွှန်ကြားချက်",),
     r"ညွှန်ကြားချက်(\s*များ)?(\s*အားလုံး)?(\s*ကို)?\s*(\S{1,10}\s*)?(လျစ်လျူရှု|မေ့)"),
    (("ညွှန်ကြားချက်",), r"(လျစ်လျူရှု|မေ့ပစ်)\s*(\S{1,20}\s*)?ညွှန်ကြားချက်"),
    (("မှတ်",),
     r"(အမှတ်|ရမှတ်)\s*(1[0ဝ][0ဝ]|အပြည့်|ပြည့်|အများဆုံး)(\s*ကို)?\s*(ပေး|သတ်မှတ်)"),
    (("ai", "အေအိုင်"), r"သင်(\s*(သည်|က))?\s*(ai|အေအိုင်)"),
    (("ai", "အေအိုင်"),
     r"(?<![a-z0-9])(ai|အေအိုင်)\s*(လက်ထောက်|စနစ်|မော်ဒယ်).{0,60}(ရမည်|သို့|ထံ)"),
    (("ai", "အေအိုင်"),
     r"(?<![a-z0-9])(ai|အေအိုင်)(\s*(လက်ထောက်|စနစ်|မော်ဒယ်))?\s*(သို့|ထံ)"),
)


RawRules = tuple[tuple[tuple[str, ...], str], ...]


Rules = tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]


#: Each script's rules, and what tells that a text is written in it: a page without a
#: Thai letter is never searched for the Thai anchors, nor tried with the Thai rules.
SCRIPTS: tuple[tuple[re.Pattern[str] | None, RawRules], ...] = (
    (None, ENGLISH),
    (re.compile("[\u0e00-\u0e7f]"), THAI),
    (re.compile("[\u1000-\u109f]"), BURMESE),
)
