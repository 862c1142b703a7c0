"""Synthetic, deterministic benchmark inputs: HTML pages, markdown knowledge bases, queries.

Everything here is a pure function of a seed, so every run (and every benchmark) sees
the same bytes:

* HTML pages for ``bench_extract``: :func:`typical_page` (a ~300 KB WordPress/Elementor
  business homepage, mostly markup, inline CSS/JS and an SVG sprite, ~2,500 words of
  copy, optionally with its JSON-LD), :func:`text_heavy_page` (~300 KB of mostly
  visible text), :func:`link_heavy_page` (the typical page plus a 100,000-link
  directory), and :func:`make_page` to wrap markup in a :class:`~leadengine.website.fetch.Page`;
* markdown knowledge bases for ``bench_keyword`` / ``bench_retrieval``:
  :func:`write_kb` with :func:`markdown_document` (free-form files) or
  :func:`sectioned_document` (``##`` sections of 60-250 words);
* queries: :func:`build_queries` (edge, short, example-page and generated website texts).

All of them draw words from a Zipf-weighted :class:`Vocabulary`.
"""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import REPO
from leadengine.website.fetch import Page

#: Size the typical and text-heavy pages aim at.
TARGET_BYTES = 300_000
#: Links in the directory of ``link-heavy-100k``.
LINK_HEAVY_LINKS = 100_000

# --------------------------------------------------------------------------- vocabulary

FUNCTION_WORDS = (
    "the and of to a in for with our we you your is are on at by from this that it as be or "
    "can will more all has have not new best also its their they which when how what who "
    "about into than only over most other some such no up out if so do may per each any"
).split()
_THAI_WORDS = "คลินิกทันตกรรม ฟอกสีฟัน จัดฟัน รากฟันเทียม ติดต่อ นัดหมาย".split()
_PAGE_PUNCT = (",", ",", ".", ":", ";", "!")


def tail_words(rng: random.Random, count: int, syllables: Sequence[str],
               lengths: Sequence[int], prefix: str = "") -> list[str]:
    """``count`` distinct made-up words of ``lengths`` syllables (the vocabulary's long tail)."""
    words: set[str] = set()
    while len(words) < count:
        n = rng.choice(lengths)
        words.add(prefix + "".join(rng.choice(syllables) for _ in range(n)))
    return sorted(words)


@dataclass
class Vocabulary:
    """Zipf-weighted word list: function words first, then ``content`` in random order."""

    words: list[str]
    cum_weights: list[float]

    @classmethod
    def build(cls, rng: random.Random, content: Sequence[str]) -> Vocabulary:
        shuffled = list(content)
        rng.shuffle(shuffled)
        ordered = FUNCTION_WORDS + shuffled
        cum: list[float] = []
        total = 0.0
        for rank in range(len(ordered)):
            total += 1.0 / (rank + 2) ** 0.95
            cum.append(total)
        return cls(ordered, cum)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum_weights, k=k)

    def sentence(self, rng: random.Random, lo: int = 8, hi: int = 22) -> str:
        words = self.sample(rng, rng.randint(lo, hi))
        words = [w + rng.choice(_PAGE_PUNCT) if rng.random() < 0.06 else w
                 for w in words[:-1]] + words[-1:]
        if rng.random() < 0.05:
            words.insert(rng.randrange(len(words)), rng.choice(_THAI_WORDS))
        text = " ".join(words)
        return text[:1].upper() + text[1:] + rng.choice((".", ".", ".", "!", "?"))

    def paragraph(self, rng: random.Random, lo: int = 2, hi: int = 5) -> str:
        return " ".join(self.sentence(rng) for _ in range(rng.randint(lo, hi)))

    def title(self, rng: random.Random, lo: int = 2, hi: int = 6) -> str:
        return " ".join(w.capitalize() for w in self.sample(rng, rng.randint(lo, hi)))


def count_words(text: str) -> int:
    return len(text.split())


# ========================================================================== HTML pages

_CONTENT = (
    "dental clinic dentist teeth tooth smile whitening implant implants braces orthodontics "
    "aligners veneers crown crowns bridge filling cleaning scaling root canal treatment "
    "patient patients doctor doctors specialist hygienist team staff care comfortable gentle "
    "modern digital x-ray scan 3d technology sterilisation safety appointment appointments "
    "consultation checkup visit family children adults seniors price prices package "
    "packages payment insurance plan plans bangkok sukhumvit asoke thonglor silom sathorn "
    "thailand international english thai japanese chinese speaking friendly experienced "
    "certified award quality results natural healthy beautiful confident pain painless "
    "anaesthesia sedation emergency same-day weekend evening hours booking online line "
    "facebook review reviews google rating trusted years since established location parking "
    "bts station minutes walk building floor room waiting coffee wifi follow-up aftercare "
    "warranty guarantee transparent quote estimate affordable premium gum gums enamel bite "
    "jaw wisdom extraction surgery bone graft denture dentures retainer night guard grinding"
).split()

_SERVICES = (
    "Teeth Whitening", "Dental Implants", "Invisalign Aligners", "Metal Braces",
    "Ceramic Braces", "Porcelain Veneers", "Composite Veneers", "Dental Crowns",
    "Dental Bridges", "Root Canal Treatment", "Scaling and Polishing", "Tooth-Coloured Fillings",
    "Wisdom Tooth Extraction", "Bone Grafting", "Full-Mouth Rehabilitation", "Dentures",
    "Kids Dentistry", "Gum Treatment", "Night Guards", "Smile Makeover",
    "Emergency Dentistry", "Digital Smile Design", "Sedation Dentistry", "Dental Check-up",
)
_MENU = ("Home", "About Us", "Treatments", "Cosmetic", "Orthodontics", "Implants",
         "Prices", "Our Dentists", "Patient Info", "Contact")

_PAGE_SYLLABLES = (
    "ka ra ma na ta sa la pa ba da ga ha ya wa zo ri mi ni ki li tu su nu lu mo"
).split()


def page_vocabulary(rng: random.Random) -> Vocabulary:
    """The dental clinic copy's vocabulary (600 made-up tail words)."""
    return Vocabulary.build(rng, _CONTENT + tail_words(rng, 600, _PAGE_SYLLABLES, (2, 3, 3, 4)))


def _hex(rng: random.Random, n: int = 7) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"



# ----------------------------------------------------------------------- typical page

_GTAG = """<script async src="https://www.googletagmanager.com/gtag/js?id=G-7QX2K9LM4P"></script>
<script>
window.dataLayer = window.dataLayer || [];
function gtag(){dataLayer.push(arguments);}
gtag('js', new Date());
gtag('config', 'G-7QX2K9LM4P', {"anonymize_ip": true,
  "linker": {"domains": ["siamsmile.example"]}});
gtag('config', 'AW-10987654321');
</script>
"""
_GTM = """<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':
new Date().getTime(),event:'gtm.js'});var f=d.getElementsByTagName(s)[0],
j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;j.src=
'https://www.googletagmanager.com/gtm.js?id='+i+dl;f.parentNode.insertBefore(j,f);
})(window,document,'script','dataLayer','GTM-5KQ8R2W');</script>
"""
_FBQ = """<script>
!function(f,b,e,v,n,t,s)
{if(f.fbq)return;n=f.fbq=function(){n.callMethod?
n.callMethod.apply(n,arguments):n.queue.push(arguments)};
if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';
n.queue=[];t=b.createElement(e);t.async=!0;
t.src=v;s=b.getElementsByTagName(e)[0];
s.parentNode.insertBefore(t,s)}(window, document,'script',
'https://connect.facebook.net/en_US/fbevents.js');
fbq('init', '918273645501234');
fbq('track', 'PageView');
</script>
"""


def _css(rng: random.Random, size: int) -> str:
    """Elementor-like inline CSS of about ``size`` characters, in a few <style> blocks."""
    props = ("margin:0px 0px 20px 0px", "padding:10px 15px 10px 15px", "color:#1a3c6e",
             "font-family:\"Poppins\", Sans-serif", "font-size:42px", "font-weight:600",
             "line-height:1.2em", "letter-spacing:0.5px", "background-color:#F4F8FC",
             "border-radius:12px 12px 12px 12px", "box-shadow:0px 10px 30px 0px rgba(0,0,0,0.08)",
             "transition:background 0.3s, border 0.3s, border-radius 0.3s, box-shadow 0.3s",
             "text-align:center", "width:100%", "max-width:1140px", "fill:#2BB3C0",
             "--e-icon-list-icon-size:14px", "display:flex", "justify-content:space-between")
    parts = [":root{" + ";".join(f"--e-global-color-{_hex(rng, 8)}:#{_hex(rng, 6)}"
                                 for _ in range(40)) + ";}"]
    blocks: list[str] = []
    total = len(parts[0])
    page_id = rng.randint(10, 999)
    while total < size:
        el = _hex(rng)
        sel = f".elementor-{page_id} .elementor-element.elementor-element-{el}"
        target = rng.choice((" > .elementor-widget-container", " .elementor-heading-title",
                             " .elementor-icon-box-title", " .elementor-button", ":hover",
                             " .elementor-icon i, .elementor-icon svg", ""))
        rule = sel + target + "{" + ";".join(rng.sample(props, rng.randint(2, 6))) + ";}"
        if rng.random() < 0.2:
            rule = f"@media(max-width:{rng.choice((767, 1024))}px){{{rule}}}"
        parts.append(rule)
        total += len(rule)
        if len(parts) > 120:
            blocks.append("".join(parts))
            parts = []
    blocks.append("".join(parts))
    ids = ("global-styles-inline-css", "elementor-frontend-inline-css",
           "elementor-post-12-inline-css", "wp-block-library-inline-css")
    return "".join(f"<style id='{ids[i % len(ids)]}{'-' + str(i) if i >= len(ids) else ''}'>"
                   f"{b}</style>\n" for i, b in enumerate(blocks))


def _json_blob(rng: random.Random, vocab: Vocabulary, size: int) -> dict[str, Any]:
    """A plugin/theme config object (i18n strings, URLs, flags, breakpoints) of ~``size``."""
    data: dict[str, Any] = {"environmentMode": {"edit": False, "wpPreview": False},
                            "version": "3.21.4", "is_static": False,
                            "urls": {"assets": "https://siamsmile.example/wp-content/plugins/"
                                     "elementor/assets/"},
                            "breakpoints": {"xs": 0, "sm": 480, "md": 768, "lg": 1025,
                                            "xl": 1440, "xxl": 1600}}
    total = len(json.dumps(data))
    while total < size:
        key = "_".join(rng.sample(_CONTENT, 2)) + "_" + _hex(rng, 4)
        kind = rng.random()
        value: Any
        if kind < 0.4:
            value = vocab.sentence(rng, 3, 9)
        elif kind < 0.6:
            value = {"label": vocab.title(rng), "value": rng.randint(0, 2000),
                     "unit": rng.choice(("px", "em", "%")), "sizes": []}
        elif kind < 0.8:
            value = f"https://siamsmile.example/wp-json/{rng.choice(_CONTENT)}/v1/{_hex(rng)}"
        else:
            value = {"enabled": rng.random() < 0.5, "id": _hex(rng, 10),
                     "items": [rng.randint(0, 99) for _ in range(rng.randint(2, 8))]}
        data[key] = value
        total += len(key) + len(json.dumps(value, ensure_ascii=False)) + 6
    return data


def _minified_js(rng: random.Random, size: int) -> str:
    """Library-like minified JavaScript of about ``size`` characters."""
    names = [f"{rng.choice('abcdefghijklmnopqrstuvwxyz')}{rng.choice('abcdefghijklmn')}"
             f"{rng.randint(0, 9)}" for _ in range(200)]
    templates = (
        'function {f}({a},{b}){{var {c}={a}.querySelectorAll(".elementor-{h}");'
        'for(var {d}=0;{d}<{c}.length;{d}++){{{c}[{d}].classList.toggle("is-active",{b})}}'
        "return {c}}}",
        '{f}=function({a}){{return"function"==typeof {a}?{a}.call(this,"{h}"):'
        "void 0!=={a}&&null!=={a}?{a}:{{}}}};",
        "var {f}=({a},{b})=>{{const {c}=Object.assign({{}},{a},{{id:\"{h}\"}});"
        "return {b}?{c}[{b}]:{c}}};",
        "{f}.prototype.{a}=function({b}){{this.{c}=this.{c}||[];this.{c}.push({b});"
        "return this.{c}.length>{n}&&this.{c}.shift(),this}};",
        "jQuery(document).on(\"click\",\".e-{h}\",function({a}){{{a}.preventDefault();"
        "jQuery(this).closest(\".elementor-widget\").toggleClass(\"open\")}});",
    )
    out: list[str] = ['!function(e,t){"use strict";']
    total = len(out[0])
    while total < size:
        a, b, c, d, f = rng.sample(names, 5)
        piece = rng.choice(templates).format(f=f, a=a, b=b, c=c, d=d, h=_hex(rng),
                                             n=rng.randint(2, 99))
        out.append(piece)
        total += len(piece)
    out.append("}(window,document);")
    return "".join(out)


def _head_scripts(rng: random.Random, vocab: Vocabulary, size: int) -> str:
    """About ``size`` characters of inline JS: config blobs, analytics, minified code."""
    fixed = _GTAG + _GTM + _FBQ
    emoji = ("<script>window._wpemojiSettings = "
             + json.dumps({"baseUrl": "https://s.w.org/images/core/emoji/15.0.3/72x72/",
                           "ext": ".png", "svgUrl": "https://s.w.org/images/core/emoji/15.0.3/"
                           "svg/", "svgExt": ".svg", "source": {"concatemoji": "https://"
                           "siamsmile.example/wp-includes/js/wp-emoji-release.min.js?ver=6.5"}})
             + ";\n" + _minified_js(rng, 5_000) + "</script>\n")
    rest = size - len(fixed) - len(emoji)
    blobs = []
    for name, share in (("elementorFrontendConfig", 0.35), ("ElementorProFrontendConfig", 0.15),
                        ("wpcf7", 0.05), ("ekitConfig", 0.10)):
        data = json.dumps(_json_blob(rng, vocab, int(rest * share)), ensure_ascii=False)
        blobs.append(f"<script id=\"{name.lower()}-js-extra\">\nvar {name} = {data};\n"
                     "</script>\n")
    code = size - len(fixed) - len(emoji) - sum(len(b) for b in blobs)
    lib = f"<script id=\"theme-inline-js\">{_minified_js(rng, max(code - 60, 0))}</script>\n"
    return emoji + blobs[0] + fixed + "".join(blobs[1:]) + lib


def _svg_sprite(rng: random.Random, size: int) -> tuple[str, list[str]]:
    """A hidden SVG sprite of about ``size`` characters and its symbol ids."""
    ids: list[str] = []
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" style="display:none" aria-hidden="true">']
    total = len(parts[0])
    while total < size:
        sid = f"icon-{rng.choice(_CONTENT)}-{len(ids)}"
        ids.append(sid)
        d = "M" + " ".join(f"{rng.uniform(0, 24):.3f} {rng.uniform(0, 24):.3f}"
                           + rng.choice(("L", "C", "Q", "", ""))
                           for _ in range(rng.randint(30, 70)))
        sym = (f'<symbol id="{sid}" viewBox="0 0 24 24"><title>{sid}</title>'
               f'<path fill="currentColor" d="{d}Z"/></symbol>')
        parts.append(sym)
        total += len(sym)
    parts.append("</svg>")
    return "".join(parts), ids


class Elementor:
    """Emits Elementor-style wrapper markup (the bulk of a page builder page's bytes)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def _id(self) -> str:
        return _hex(self.rng)

    def widget(self, kind: str, inner: str) -> str:
        i = self._id()
        return (f'<div class="elementor-element elementor-element-{i} elementor-widget '
                f'elementor-widget-{kind}" data-id="{i}" data-element_type="widget" '
                f'data-widget_type="{kind}.default">\n<div class="elementor-widget-container">'
                f"\n{inner}\n</div>\n</div>\n")

    def column(self, widgets: Sequence[str], width: int = 100) -> str:
        i = self._id()
        return (f'<div class="elementor-column elementor-col-{width} elementor-top-column '
                f'elementor-element elementor-element-{i}" data-id="{i}" '
                f'data-element_type="column">\n<div class="elementor-widget-wrap '
                f'elementor-element-populated">\n{"".join(widgets)}</div>\n</div>\n')

    def section(self, columns: Sequence[str], css_id: str = "") -> str:
        i = self._id()
        settings = html.escape(json.dumps({"background_background": "classic",
                                           "shape_divider_bottom": "waves",
                                           "animation": "fadeInUp"}))
        anchor = f' id="{css_id}"' if css_id else ""
        return (f'<section{anchor} class="elementor-section elementor-top-section '
                f'elementor-element elementor-element-{i} elementor-section-boxed '
                f'elementor-section-height-default elementor-section-height-default" '
                f'data-id="{i}" data-element_type="section" data-settings="{settings}">\n'
                f'<div class="elementor-container elementor-column-gap-default">\n'
                f'{"".join(columns)}</div>\n</section>\n')

    def heading(self, text: str, tag: str = "h2") -> str:
        return self.widget("heading", f'<{tag} class="elementor-heading-title '
                                      f'elementor-size-default">{html.escape(text)}</{tag}>')

    def text(self, paragraphs: Sequence[str]) -> str:
        return self.widget("text-editor", "".join(f"<p>{html.escape(p)}</p>"
                                                  for p in paragraphs))

    def icon_box(self, icon: str, title: str, body: str, href: str) -> str:
        return self.widget("icon-box", (
            '<div class="elementor-icon-box-wrapper"><div class="elementor-icon-box-icon">'
            f'<a href="{href}" class="elementor-icon elementor-animation-grow" tabindex="-1">'
            f'<svg class="e-font-icon-svg" aria-hidden="true"><use xlink:href="#{icon}"></use>'
            '</svg></a></div><div class="elementor-icon-box-content"><h3 class='
            f'"elementor-icon-box-title"><a href="{href}">{html.escape(title)}</a></h3>'
            f'<p class="elementor-icon-box-description">{html.escape(body)}</p></div></div>'))

    def button(self, label: str, href: str) -> str:
        return self.widget("button", (
            f'<div class="elementor-button-wrapper"><a class="elementor-button elementor-button-'
            f'link elementor-size-md" href="{href}"><span class="elementor-button-content-'
            f'wrapper"><span class="elementor-button-text">{html.escape(label)}</span></span>'
            "</a></div>"))

    def image(self, n: int) -> str:
        base = f"https://siamsmile.example/wp-content/uploads/2024/0{n % 9 + 1}/clinic-{n}"
        srcset = ", ".join(f"{base}-{w}x{w * 3 // 4}.jpg {w}w" for w in (300, 768, 1024, 1536))
        return self.widget("image", (
            f'<img loading="lazy" decoding="async" width="800" height="600" '
            f'src="{base}-1024x768.jpg" class="attachment-large size-large wp-image-{n + 200}" '
            f'alt="" srcset="{srcset}" sizes="(max-width: 800px) 100vw, 800px" />'))


def _mega_menu(rng: random.Random, links: int) -> str:
    per = links // len(_MENU)
    items: list[str] = []
    n = 0
    for top in _MENU:
        subs = []
        for _ in range(per if top != _MENU[-1] else links - per * (len(_MENU) - 1) - 1):
            label = rng.choice(_SERVICES) + rng.choice(("", " Bangkok", " Price", " FAQ",
                                                         " Before & After", " Guide"))
            slug = label.lower().replace(" & ", "-").replace(" ", "-")
            n += 1
            subs.append(f'<li class="menu-item menu-item-type-post_type menu-item-object-page '
                        f'menu-item-{300 + n}"><a href="https://siamsmile.example/{slug}/" '
                        f'class="elementor-sub-item">{html.escape(label)}</a></li>')
        slug = top.lower().replace(" ", "-")
        items.append(f'<li class="menu-item menu-item-type-post_type menu-item-object-page '
                     f'menu-item-has-children menu-item-{100 + len(items)}"><a href="https://'
                     f'siamsmile.example/{slug}/" class="elementor-item has-submenu">{top}</a>'
                     f'<ul class="sub-menu elementor-nav-menu--dropdown">{"".join(subs)}</ul>'
                     "</li>")
    return ('<nav aria-label="Menu" class="elementor-nav-menu--main elementor-nav-menu__container'
            ' elementor-nav-menu--layout-horizontal e--pointer-underline e--animation-fade">'
            f'<ul id="menu-1-{_hex(rng)}" class="elementor-nav-menu">{"".join(items)}</ul></nav>')


_FOOTER_ADDRESS = "88/12 Sukhumvit Soi 23, Khlong Toei Nuea, Watthana, Bangkok 10110"


def _json_ld(name: str) -> str:
    graph = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebPage", "@id": "https://siamsmile.example/#webpage",
         "url": "https://siamsmile.example/", "name": name, "inLanguage": "en-US"},
        {"@type": ["Dentist", "LocalBusiness"], "@id": "https://siamsmile.example/#business",
         "name": name, "url": "https://siamsmile.example/", "telephone": "+66 2 555 0142",
         "email": "hello@siamsmile.example", "priceRange": "฿฿",
         "address": {"@type": "PostalAddress", "streetAddress": "88/12 Sukhumvit Soi 23",
                     "addressLocality": "Bangkok", "addressRegion": "Watthana",
                     "postalCode": "10110", "addressCountry": "TH"},
         "openingHoursSpecification": [
             {"@type": "OpeningHoursSpecification", "dayOfWeek": ["Monday", "Tuesday",
              "Wednesday", "Thursday", "Friday"], "opens": "10:00", "closes": "20:00"},
             {"@type": "OpeningHoursSpecification", "dayOfWeek": ["Saturday", "Sunday"],
              "opens": "10:00", "closes": "18:00"}],
         "sameAs": ["https://www.facebook.com/siamsmiledental",
                    "https://www.instagram.com/siamsmiledental"]}]}
    return ('<script type="application/ld+json" class="yoast-schema-graph">'
            + json.dumps(graph, ensure_ascii=False) + "</script>\n")


def typical_page(seed: int, target_bytes: int = TARGET_BYTES, json_ld: bool = True) -> str:
    """A WordPress/Elementor-like dental clinic homepage of about ``target_bytes`` bytes."""
    rng = random.Random(seed)
    vocab = page_vocabulary(rng)
    el = Elementor(rng)
    name = "Siam Smile Dental Clinic"
    head = ['<!DOCTYPE html>\n<html lang="en-US">\n<head>\n<meta charset="UTF-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{name} | Teeth Whitening, Implants &amp; Invisalign in Sukhumvit, "
            "Bangkok</title>\n"
            '<meta name="description" content="English-speaking dental clinic on Sukhumvit '
            'Soi 23, Bangkok: implants, Invisalign, whitening and veneers with transparent '
            'prices.">\n<meta property="og:site_name" content="Siam Smile Dental">\n'
            '<link rel="canonical" href="https://siamsmile.example/">\n']
    head += [f"<link rel='stylesheet' id='{h}-css' href='https://siamsmile.example/wp-content/"
             f"{h}.min.css?ver=3.21.4' media='all' />\n"
             for h in ("elementor-frontend", "elementor-pro", "hello-elementor", "swiper",
                       "e-animations", "elementor-icons", "google-fonts-1")]
    head.append(_css(rng, 60_000))
    head.append(_head_scripts(rng, vocab, 80_000))
    head.append("<script src='https://siamsmile.example/wp-includes/js/jquery/jquery.min.js"
                "?ver=3.7.1' id='jquery-core-js'></script>\n")
    if json_ld:
        head.append(_json_ld(name))
    head.append("</head>\n")

    sprite, icons = _svg_sprite(rng, 30_000)
    body: list[str] = [
        '<body class="home page-template page-template-elementor_header_footer page page-id-12 '
        'wp-custom-logo elementor-default elementor-template-full-width elementor-kit-5 '
        'elementor-page elementor-page-12">\n', sprite,
        '\n<a class="skip-link screen-reader-text" href="#content">Skip to content</a>\n',
        '<header data-elementor-type="header" class="elementor elementor-40 elementor-location-'
        'header">\n',
        el.section([el.column([el.widget("theme-site-logo", '<a href="https://siamsmile.example/">'
                                         '<img width="240" height="60" src="https://siamsmile.'
                                         'example/wp-content/uploads/logo.png" alt="Siam Smile">'
                                         "</a>")], 20),
                    el.column([el.widget("nav-menu", _mega_menu(rng, 150))], 60),
                    el.column([el.button("Book Online", "https://siamsmile.example/book-online/")],
                              20)]),
        "</header>\n<main id=\"content\">\n",
    ]
    words = 0

    def para(lo: int = 2, hi: int = 5) -> str:
        nonlocal words
        p = vocab.paragraph(rng, lo, hi)
        words += count_words(p)
        return p

    hero_title = "Your Smile, Perfected in the Heart of Sukhumvit"
    words += count_words(hero_title)
    body.append(el.section([el.column([el.heading(hero_title, "h1"), el.text([para(2, 3)]),
                                       el.button("Book a Free Consultation",
                                                 "https://siamsmile.example/book-online/"),
                                       el.button("Call +66 2 555 0142", "tel:+6625550142")])],
                           "hero"))
    # Services: 12 icon boxes in rows of 3.
    boxes = []
    for i, service in enumerate(_SERVICES[:12]):
        blurb = vocab.sentence(rng, 12, 24)
        words += count_words(service) + count_words(blurb)
        slug = service.lower().replace(" ", "-")
        boxes.append(el.icon_box(icons[i % len(icons)], service, blurb,
                                 f"https://siamsmile.example/{slug}/"))
    body.append(el.section([el.column([el.heading("Our Treatments")], 100)], "treatments"))
    for row in range(4):
        body.append(el.section([el.column([b], 33) for b in boxes[row * 3 : row * 3 + 3]]))
    # About: headings, paragraphs, lists.
    for _ in range(6):
        heading = vocab.title(rng)
        words += count_words(heading)
        items = [vocab.sentence(rng, 5, 12) for _ in range(rng.randint(3, 6))]
        words += sum(count_words(i) for i in items)
        listing = el.widget("icon-list", '<ul class="elementor-icon-list-items">' + "".join(
            f'<li class="elementor-icon-list-item"><span class="elementor-icon-list-icon">'
            f'<svg aria-hidden="true"><use xlink:href="#{rng.choice(icons)}"></use></svg></span>'
            f'<span class="elementor-icon-list-text">{html.escape(i)}</span></li>'
            for i in items) + "</ul>")
        body.append(el.section([el.column([el.heading(heading), el.text([para(), para()])], 50),
                                el.column([listing], 50)]))
    # Pricing table: 40 rows.
    rows = []
    for i in range(40):
        service = rng.choice(_SERVICES)
        desc = vocab.sentence(rng, 5, 11)
        price = f"฿{rng.randint(5, 900) * 100:,}"
        cells = (service, desc, price, f"{rng.choice((30, 45, 60, 90, 120))} min")
        words += sum(count_words(c) for c in cells)
        rows.append(f'<tr class="price-row row-{i}">' + "".join(
            f'<td class="col-{j}">{html.escape(c)}</td>' for j, c in enumerate(cells)) + "</tr>")
    table = ('<table class="price-table"><thead><tr><th>Treatment</th><th>Details</th>'
             f'<th>Price</th><th>Duration</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    body.append(el.section([el.column([el.heading("Transparent Prices"), el.text([para(1, 2)]),
                                       el.widget("html", table)])], "prices"))
    gallery_at = len(body)
    # Testimonials.
    quotes = []
    for _ in range(8):
        quote = para(2, 4)
        who = f"{rng.choice(('Anna', 'Somchai', 'Kenji', 'Maria', 'Ploy', 'David'))} " \
              f"{rng.choice('ABCDEFGHKLMPRSTW')}."
        words += 2
        stars = "".join(f'<svg class="e-star"><use xlink:href="#{icons[0]}"></use></svg>'
                        for _ in range(5))
        quotes.append(el.widget("testimonial", (
            f'<div class="elementor-testimonial-wrapper"><div class="elementor-star-rating">'
            f'{stars}</div><div class="elementor-testimonial-content">{html.escape(quote)}</div>'
            f'<div class="elementor-testimonial-meta"><div class="elementor-testimonial-name">'
            f"{who}</div></div></div>")))
    body.append(el.section([el.column([el.heading("What Our Patients Say"), *quotes[:4]], 50),
                            el.column(quotes[4:], 50)], "reviews"))
    # FAQ (accordion) fills the copy up to ~2,500 words.
    faq = []
    while words < 2_350:
        question = vocab.sentence(rng, 5, 10).rstrip(".!") + "?"
        words += count_words(question)
        faq.append(f'<div class="elementor-toggle-item"><div class="elementor-tab-title" '
                   f'role="button"><a class="elementor-toggle-title" tabindex="0">'
                   f'{html.escape(question)}</a></div><div class="elementor-tab-content '
                   f'elementor-clearfix" role="region"><p>{html.escape(para(2, 4))}</p></div>'
                   "</div>")
    body.append(el.section([el.column([el.heading("Frequently Asked Questions"),
                                       el.widget("toggle", "".join(faq))])], "faq"))
    # Contact form.
    form = (
        '<form class="elementor-form" method="post" name="Contact" action="https://siamsmile.'
        'example/wp-admin/admin-ajax.php"><input type="hidden" name="post_id" value="12"/>'
        '<input type="hidden" name="form_id" value="3f2a1c9"/><div class="elementor-form-fields'
        '-wrapper elementor-labels-">'
        + "".join(f'<div class="elementor-field-type-{t} elementor-field-group elementor-column '
                  f'elementor-field-group-{n} elementor-col-50"><label for="form-field-{n}" '
                  f'class="elementor-field-label elementor-screen-only">{n.title()}</label>'
                  + (f'<textarea class="elementor-field elementor-field-textual elementor-size-'
                     f'sm" name="form_fields[{n}]" id="form-field-{n}" rows="4" placeholder='
                     f'"Your message"></textarea>' if t == "textarea" else
                     f'<input size="1" type="{t}" name="form_fields[{n}]" id="form-field-{n}" '
                     f'class="elementor-field elementor-size-sm elementor-field-textual" '
                     f'placeholder="{n.title()}">') + "</div>"
                  for t, n in (("text", "name"), ("email", "email"), ("tel", "phone"),
                               ("textarea", "message")))
        + '<div class="elementor-field-group elementor-column elementor-field-type-submit">'
        '<button type="submit" class="elementor-button elementor-size-sm"><span class="'
        'elementor-button-text">Send Message</span></button></div></div></form>')
    body.append(el.section([el.column([el.heading("Contact Us"), el.text([para(1, 2)]),
                                       el.widget("form", form)])], "contact"))
    body.append("</main>\n")
    # Footer: address, phones, emails, social links.
    social = (("facebook", "https://www.facebook.com/siamsmiledental"),
              ("instagram", "https://www.instagram.com/siamsmiledental"),
              ("line", "https://line.me/R/ti/p/@siamsmile"),
              ("whatsapp", "https://wa.me/66815550142"),
              ("tiktok", "https://www.tiktok.com/@siamsmiledental"),
              ("youtube", "https://www.youtube.com/@siamsmiledental"))
    contact = el.widget("icon-list", '<ul class="elementor-icon-list-items">' + "".join(
        f'<li class="elementor-icon-list-item"><a href="{href}"><span class="elementor-icon-list-'
        f'text">{label}</span></a></li>' for href, label in (
            ("https://goo.gl/maps/siamsmile", _FOOTER_ADDRESS),
            ("tel:+6625550142", "+66 2 555 0142"), ("tel:+66815550142", "081 555 0142"),
            ("mailto:hello@siamsmile.example", "hello@siamsmile.example"),
            ("mailto:siamsmile.booking@gmail.com", "siamsmile.booking@gmail.com"))) + "</ul>")
    icons_html = el.widget("social-icons", "".join(
        f'<a class="elementor-icon elementor-social-icon elementor-social-icon-{net}" '
        f'href="{href}" target="_blank" rel="noopener"><span class="elementor-screen-only">'
        f'{net.title()}</span><svg><use xlink:href="#{rng.choice(icons)}"></use></svg></a>'
        for net, href in social))
    body.append('<footer data-elementor-type="footer" class="elementor elementor-41 '
                'elementor-location-footer">\n')
    body.append(el.section([el.column([el.heading(name, "h4"), el.text([para(1, 2)])], 33),
                            el.column([el.heading("Visit Us", "h4"), contact], 33),
                            el.column([el.heading("Follow Us", "h4"), icons_html], 33)]))
    body.append(el.section([el.column([el.text(["© 2024 Siam Smile Dental Clinic. All rights "
                                                "reserved. คลินิกทันตกรรม สุขุมวิท 23"])])]))
    body.append("</footer>\n")
    body.append("".join(f"<script src='https://siamsmile.example/wp-content/plugins/{s}.min.js"
                        f"?ver=3.21.4' id='{s.replace('/', '-')}-js'></script>\n"
                        for s in ("elementor/assets/js/webpack.runtime",
                                  "elementor/assets/js/frontend-modules",
                                  "elementor-pro/assets/js/frontend", "elementor/assets/js/"
                                  "frontend", "contact-form-7/includes/js/index")))
    body.append("</body>\n</html>\n")

    # Gallery of image widgets (markup only) fills the page up to the target size.
    def size(extra: Sequence[str]) -> int:
        return len("".join(head + body[:gallery_at] + list(extra) + body[gallery_at:])
                   .encode("utf-8"))

    gallery: list[str] = []
    base = size(())
    n = 0
    while base < target_bytes - 1_000:
        images = el.section([el.column([el.image(n + k)], 33) for k in range(3)])
        if base + len(images) > target_bytes + 1_000:
            break
        gallery.append(images)
        base += len(images)
        n += 3
    return "".join(head + body[:gallery_at] + gallery + body[gallery_at:])


def link_heavy_page(seed: int, links: int = LINK_HEAVY_LINKS) -> str:
    """``typical_page(seed)`` with a directory of ``links`` product links before its footer
    (a shop's "all products" page, or a hostile one)."""
    page = typical_page(seed)
    directory = ('<section class="directory"><h2>All products</h2><p>'
                 + " ".join(f'<a href="/p/{i}/">Item {i}</a>' for i in range(links))
                 + "</p></section>\n")
    at = page.index("<footer")
    return page[:at] + directory + page[at:]


def text_heavy_page(seed: int, target_bytes: int = TARGET_BYTES) -> str:
    """~``target_bytes`` of mostly visible text: a long article and a 600-row price table."""
    rng = random.Random(seed + 7)
    vocab = page_vocabulary(rng)
    rows = []
    categories = ("Implants", "Orthodontics", "Cosmetic", "General", "Surgery", "Kids")
    for i in range(600):
        cells = (f"SSD-{i:05d}", " ".join(vocab.sample(rng, rng.randint(3, 7))).capitalize(),
                 rng.choice(categories), rng.choice(("per tooth", "per arch", "per visit",
                                                     "per case")),
                 f"{rng.randint(5, 2500) * 100:,}", rng.choice(("yes", "yes", "no")))
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    table = ("<table><thead><tr><th>Code</th><th>Item</th><th>Category</th><th>Unit</th>"
             f"<th>Price (THB)</th><th>In stock</th></tr></thead><tbody>{''.join(rows)}"
             "</tbody></table>")
    head = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            "<title>Complete Guide and Price List 2024 | Siam Smile Dental</title>\n"
            "<style>body{font-family:Georgia,serif;max-width:860px;margin:auto}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
            "</style>\n</head>\n<body>\n<header><a href=\"/\">Siam Smile Dental</a><nav>"
            + " | ".join(f'<a href="/{m.lower().replace(" ", "-")}/">{m}</a>' for m in _MENU)
            + "</nav></header>\n<main><article>\n<h1>The Complete Guide to Dental Treatment "
            "Prices in Bangkok</h1>\n")
    tail = ("<h2>Full price list</h2>\n" + table + "\n</article></main>\n<footer><p>Siam Smile "
            f"Dental Clinic, {_FOOTER_ADDRESS}. Tel +66 2 555 0142, "
            'hello@siamsmile.example</p><p><a href="https://www.facebook.com/siamsmiledental">'
            "Facebook</a></p></footer>\n</body>\n</html>\n")
    article: list[str] = []
    total = len((head + tail).encode("utf-8"))
    while total < target_bytes:
        block = f"<h2>{html.escape(vocab.title(rng))}</h2>\n" + "".join(
            f"<p>{html.escape(vocab.paragraph(rng, 3, 7))}</p>\n"
            for _ in range(rng.randint(3, 6)))
        article.append(block)
        total += len(block.encode("utf-8"))
    return head + "".join(article) + tail


def make_page(url: str, markup: str, encoding: str = "utf-8") -> Page:
    """``markup`` as a fetched 200 ``text/html`` page at ``url`` (no network)."""
    return Page(url=url, final_url=url, status=200, content_type="text/html", html=markup,
                encoding=encoding, truncated=False, fetched_at=0.0)


# ============================================================= markdown KBs and queries


def _split(text: str) -> list[str]:
    return text.split()


_BUSINESS = _split(
    "business company service services customer customers client clients growth revenue "
    "sales marketing digital strategy website online booking appointment appointments system "
    "automation platform facebook instagram tiktok viber messenger analytics tracking "
    "conversion funnel lead leads campaign advertising brand content social media team staff "
    "management operations manual process payment payments delivery order orders menu price "
    "prices package foundation consultation education school training course courses student "
    "students university medical clinic hospital dental dentist teeth whitening orthodontics "
    "implant implants patient patients doctor health healthcare pharmacy beauty spa salon "
    "restaurant cafe coffee food kitchen chef hotel travel tour construction engineering "
    "property estate logistics export import retail shop store ecommerce cart checkout "
    "gateway software development developer agency agencies consulting finance bank "
    "insurance legal visibility measurement operational asset ownership maturity signals "
    "framework qualification criteria industry exclusion geography target market markets "
    "bottleneck dependency risk attention positioning competitive infrastructure weakness "
    "gap gaps angle outreach evaluation evidence score fit proposal pricing retention "
    "loyalty referral reviews google maps search seo landing page form forms email "
    "newsletter crm spreadsheet excel inventory warehouse supplier suppliers franchise "
    "branch branches owner founder manager employees headcount budget investment roi"
)

_GEOGRAPHY = _split(
    "yangon mandalay bangkok naypyidaw bago taunggyi myanmar thailand chiang mai phuket "
    "pattaya sukhumvit silom asoke thonglor sathorn ladprao hlaing sanchaung bahan kamayut "
    "asia southeast asean regional local nationwide"
)

_THAI = _split("กรุงเทพ คลินิก ทันตกรรม ร้านอาหาร การตลาด โรงเรียน บริการ ติดต่อ จองคิว โปรโมชั่น "
               "สุขภาพ ฟันขาว")
_BURMESE = _split("ရန်ကုန် မန္တလေး ဆေးခန်း စားသောက်ဆိုင် ပညာရေး ဝန်ဆောင်မှု ဆက်သွယ်ရန် ဈေးကွက်")

_SYLLABLES = _split(
    "ka ra ma na ta sa la pa ba da ga ha ya wa zo ri mi ni ki li tu su nu lu mo no po ro "
    "lo sun gold star lotus bright smile royal city green golden pearl silver jade"
)

_WEB = _split(
    "home about contact us menu login signup faq gallery testimonials blog news careers "
    "privacy policy terms copyright rights reserved follow call now book today free "
    "quote open hours monday friday saturday sunday closed located near road soi street "
    "floor building tel phone line whatsapp map directions welcome friendly professional "
    "experienced affordable quality trusted certified award years since established"
)

_KB_PUNCT = (",", ".", ":", ";", "!", "?", ")", "'s", "-based")
_SHORT_QUERIES = (
    "medical clinic bangkok",
    "restaurant automation system",
    "dental clinic Sukhumvit Bangkok whitening",
    "digital marketing agency yangon",
    "education school mandalay enrollment",
    "facebook-only business with manual booking",
    "construction company Yangon",
    "coffee shop chiang mai",
    "Platform Dependency Risk",
    "revenue visibility gap analytics tracking",
    "ร้านอาหาร กรุงเทพ",
    "ဆေးခန်း ရန်ကုန်",
)
#: Queries exercising edges: no terms at all, fallback only (no word or long-word match).
EDGE_QUERIES = (
    "",
    "   \n\t ",
    "qqq zzz xx",
    "#visitbangkok2024 qqq",
    "xx-mandalay-xx zz",
    "MEDICALGRADE!!! zzqv",
    "a an to",
)


def kb_vocabulary(rng: random.Random, extra: Sequence[str] = ()) -> Vocabulary:
    """Business, geography, Thai and Burmese words, plus ``extra``."""
    return Vocabulary.build(rng, _BUSINESS + _GEOGRAPHY + _THAI + _BURMESE + list(extra))


def kb_tail_words(rng: random.Random, count: int, prefix: str = "") -> list[str]:
    return tail_words(rng, count, _SYLLABLES, (2, 2, 3, 3, 4), prefix)


def decorate(rng: random.Random, word: str) -> str:
    r = rng.random()
    if r < 0.07:
        word = word + rng.choice(_KB_PUNCT)
    elif r < 0.09:
        word = "(" + word + ")"
    elif r < 0.10:
        word = '"' + word + '"'
    if rng.random() < 0.06 or (word[:1] in "ymbcpst" and rng.random() < 0.08):
        word = word[:1].upper() + word[1:]
    return word


def kb_sentence(rng: random.Random, vocab: Vocabulary, lo: int, hi: int) -> str:
    words = [decorate(rng, w) for w in vocab.sample(rng, rng.randint(lo, hi))]
    words[0] = words[0][:1].upper() + words[0][1:]
    r = rng.random()
    if r < 0.05:
        words.insert(rng.randrange(len(words)), f"+66 {rng.randint(2, 9)} {rng.randint(100, 999)}"
                     f" {rng.randint(1000, 9999)}")
    elif r < 0.09:
        words.insert(rng.randrange(len(words)), f"https://www.{words[-1].strip('.,')}.com/book")
    elif r < 0.12:
        words.insert(rng.randrange(len(words)), f"฿{rng.randint(1, 99)},{rng.randint(100, 999)}")
    return " ".join(words) + rng.choice((".", ".", ".", "!", ":"))


def markdown_document(rng: random.Random, vocab: Vocabulary, words: int) -> str:
    """One markdown file of about ``words`` words, with headings, paragraphs and lists."""
    parts = [f"# {vocab.title(rng, 2, 5)}", ""]
    count = 0
    while count < words:
        heading = vocab.title(rng, 1, 4)
        parts += [f"{rng.choice(('##', '##', '###'))} {heading}", ""]
        count += 3
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                for _ in range(rng.randint(2, 6)):
                    item = kb_sentence(rng, vocab, 3, 10)
                    parts.append(f"{rng.choice(('-', '*', '1.'))} {item}")
                    count += len(item.split()) + 1
            else:
                para = " ".join(kb_sentence(rng, vocab, 8, 25) for _ in range(rng.randint(2, 6)))
                parts.append(para)
                count += len(para.split())
            parts.append("")
    return "\n".join(parts) + "\n"


def section_body(rng: random.Random, vocab: Vocabulary, target: int) -> str:
    """Paragraphs (sometimes a bullet list) of about ``target`` (60-250) words."""
    blocks: list[str] = []
    count = 0
    while target - count >= 8:
        remaining = target - count
        if rng.random() < 0.2 and remaining >= 20:
            items = []
            for _ in range(rng.randint(2, 5)):
                hi = min(10, target - count - 5)
                if hi < 3:
                    break
                item = f"{rng.choice(('-', '*', '1.'))} {kb_sentence(rng, vocab, 3, hi)}"
                items.append(item)
                count += len(item.split())
            if items:
                blocks.append("\n".join(items))
            continue
        sentences = []
        for _ in range(rng.randint(2, 6)):
            hi = min(25, target - count - 5)
            if hi < 3:
                break
            s = kb_sentence(rng, vocab, min(8, hi), hi)
            sentences.append(s)
            count += len(s.split())
        if sentences:
            blocks.append(" ".join(sentences))
    return "\n\n".join(blocks)


def sectioned_document(rng: random.Random, vocab: Vocabulary, sections: int) -> str:
    """A markdown file: a ``#`` title, then ``sections`` ``##`` sections of 60-250 words."""
    parts = [f"# {vocab.title(rng, 2, 5)}", ""]
    for _ in range(sections):
        heading = vocab.title(rng, 1, 4)
        parts += [f"## {heading}", "", section_body(rng, vocab, rng.randint(60, 250)), ""]
    return "\n".join(parts) + "\n"


def write_kb(root: Path, files: int, seed: int,
             document: Callable[[random.Random, Vocabulary], str], stem: str = "doc") -> Path:
    """Write ``files`` markdown files made by ``document`` under ``root`` (every third one
    in one of 7 sub-folders), all from one vocabulary with 3,000 made-up tail words."""
    rng = random.Random(seed)
    vocab = kb_vocabulary(rng, kb_tail_words(rng, 3000))
    for i in range(files):
        sub = root / f"area{i % 7}" if i % 3 == 0 else root
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{stem}_{i:05d}.md").write_text(document(rng, vocab), encoding="utf-8")
    return root


def fixture_pages() -> list[str]:
    """Text of the example pages (tags stripped by a regex; fine for a benchmark)."""
    pages = []
    for page in sorted((REPO / "examples").glob("*/*.html")):
        raw = page.read_text(encoding="utf-8")
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        pages.append(re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw))).strip())
    return pages


def website_query(rng: random.Random, vocab: Vocabulary, words: int) -> str:
    """A website-like page text of about ``words`` words."""
    name = " ".join(w.capitalize() for w in rng.sample(_SYLLABLES, 2))
    nav = " ".join(w.capitalize() for w in rng.sample(_WEB, 6))
    parts = [f"{name} | {nav}"]
    count = len(parts[0].split())
    while count < words:
        s = kb_sentence(rng, vocab, 5, 20)
        parts.append(s)
        count += len(s.split())
    parts.append(f"© {rng.randint(2015, 2025)} {name}. All rights reserved. Follow us on Facebook")
    return " ".join(parts)


def build_queries(count: int, seed: int) -> tuple[list[str], list[str]]:
    """``count`` queries and their kinds: edge, short, fixture, then generated short/long."""
    rng = random.Random(seed + 1)
    web_vocab = kb_vocabulary(rng, _WEB * 2 + kb_tail_words(rng, 800, prefix="q"))
    short_vocab = kb_vocabulary(rng)
    queries: list[tuple[str, str]] = [("edge", q) for q in EDGE_QUERIES]
    queries += [("short", q) for q in _SHORT_QUERIES]
    queries += [("fixture", q) for q in fixture_pages()]
    i = 0
    while len(queries) < count:
        if i % 2 == 0:
            content = [w for w in short_vocab.sample(rng, 12) if w not in FUNCTION_WORDS]
            q = " ".join(decorate(rng, w) for w in content[: rng.randint(2, 6)])
            queries.append(("short", q))
        else:
            queries.append(("long", website_query(rng, web_vocab, rng.randint(100, 800))))
        i += 1
    queries = queries[:count]
    return [q for _, q in queries], [k for k, _ in queries]
