"""Townships, districts and neighbourhoods of the target cities name their city: a Yangon
business whose address gives only its township (Bahan, Golden Valley), a Mandalay one
only its township, a Bangkok one only its khet or area, in Latin, Burmese or Thai; and a
Lao town written in Thai script is the Lao town.

The pages are read the way the engine reads a site (:func:`load_site`, then
:func:`site_facts`), and the location facts are checked field by field. The names come
from ``data/places/places.yaml`` (``districts:`` and ``areas:``), made keys of their city
by ``tools/build_places.py``. The pages are written for these tests, in the forms real
sites use; the businesses are made up.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from leadengine import KnowledgeBase
from leadengine.facts.location import Location
from leadengine.facts.site_facts import site_facts
from leadengine.website.load import load_site
from leadengine.website.location import SiteLocation, gazetteer
from leadengine.website.location.places import Text


def page(body: str, lang: str = "en", title: str = "Welcome") -> str:
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
            f"<title>{title}</title></head><body>{body}</body></html>")


def read(tmp_path: Path, html: str, kb: KnowledgeBase) -> tuple[SiteLocation, Location]:
    """The site's location as read from its page, and its location facts."""
    path = tmp_path / "index.html"
    path.write_text(html, encoding="utf-8")
    site = asyncio.run(load_site(str(path)))
    return site.location, site_facts(site, kb.rules).location


def where(location: Location) -> tuple[str | None, str | None, bool | None]:
    return location.city, location.country, location.in_target_geography


# --- Yangon ---------------------------------------------------------------------------------

CLINIC_EN = page("""
<header><h1>Golden Care Dental Clinic</h1><nav><a href="/">Home</a> <a href="/team">Our team</a>
</nav></header>
<main><p>Family dentistry, implants and braces. Walk-ins welcome, six days a week.</p></main>
<footer><h3>Address</h3><p>No. 12, Golden Valley Road, Bahan Township</p>
<p>Open Mon-Sat 9:00 - 18:00</p></footer>""", title="Golden Care Dental Clinic")


def test_a_yangon_township_alone_places_the_business_in_yangon(tmp_path: Path,
                                                                 kb: KnowledgeBase) -> None:
    web, location = read(tmp_path, CLINIC_EN, kb)
    assert web.street_address is not None
    assert web.street_address.value == "No. 12, Golden Valley Road, Bahan Township"
    assert web.city is not None and web.city.value == "Yangon"
    assert web.city.evidence == 'address text: "No. 12, Golden Valley Road, Bahan Township"'
    assert web.country is not None and web.country.value == "MM"
    assert where(location) == ("Yangon", "Myanmar", True)
    assert location.country_code == "MM"
    assert location.evidence.startswith("Yangon, a target city (address text:")


def test_golden_valley_is_yangon_not_the_town_in_minnesota(tmp_path: Path,
                                                           kb: KnowledgeBase) -> None:
    # The issue: "Golden Valley" was read as Golden Valley, Minnesota (outside the target
    # markets); "Bahan" alone is also a Malay word ("material"), so it counts only with
    # its township word, and Golden Valley gives the city here.
    html = page("<h1>Shwe Hnin Si Bakery</h1><p>Cakes to order.</p>"
                "<p>Address: No. 52, Golden Valley, Bahan</p>")
    web, location = read(tmp_path, html, kb)
    assert web.city is not None and web.city.value == "Yangon"
    assert where(location) == ("Yangon", "Myanmar", True)


def test_a_burmese_township_alone(tmp_path: Path, kb: KnowledgeBase) -> None:
    html = page("""<h1>ရွှေနှင်းဆီ အလှပြင်ဆိုင်</h1><p>ဆံပင်ညှပ်၊ မိတ်ကပ်</p>
<div class="contact"><p>လိပ်စာ</p><p>အမှတ် ၁၂၊ ရွှေတောင်ကြားလမ်း၊ ဗဟန်းမြို့နယ်</p></div>""",
                lang="my", title="ရွှေနှင်းဆီ")
    web, location = read(tmp_path, html, kb)
    assert web.street_address is not None
    assert web.street_address.value == "အမှတ် ၁၂၊ ရွှေတောင်ကြားလမ်း၊ ဗဟန်းမြို့နယ်"
    assert web.city is not None and web.city.value == "Yangon"
    assert web.country is not None and web.country.value == "MM"
    assert where(location) == ("Yangon", "Myanmar", True)


@pytest.mark.parametrize(("address", "named"), [
    ("No. 88, Industrial Zone 3, Hlaing Tharyar Township", "Hlaingthaya"),
    ("No. 7, Pyay Road, Kamayut Tsp", ""),
    ("No. 21, Kaba Aye Pagoda Road, Mayangone Township", ""),
    ("No. 45, Pinlon Road, Dagon Myothit (North)", ""),
    ("No. 3, Thudhamma Road, North Okkalapa", ""),
    ("Room 4, Bogyoke Market, Pabedan Tsp", ""),
    ("အမှတ် ၉၊ ပြည်လမ်း၊ စမ်းချောင်းမြို့နယ်", "San Chaung"),
    ("အမှတ် ၁၅၊ ဒဂုံမြို့သစ်တောင်ပိုင်း", ""),
])
def test_other_yangon_townships(address: str, named: str, tmp_path: Path,
                                kb: KnowledgeBase) -> None:
    web, location = read(tmp_path, page(f"<h1>Our shop</h1><address>{address}</address>"), kb)
    assert web.city is not None and web.city.value == "Yangon", address
    # A township GeoNames has as a town of its own (Hlaingthaya, 690,000 people; San
    # Chaung, which it places 30 km north) is named in the evidence as the district.
    assert web.city.evidence.endswith(f"({named}, in Yangon)" if named else '"')
    assert where(location) == ("Yangon", "Myanmar", True)


# --- Mandalay -------------------------------------------------------------------------------

@pytest.mark.parametrize(("address", "named"), [
    ("No. 5, 78th Street, between 27th &amp; 28th Street, Chanayethazan Tsp.", ""),
    ("No. 3, U Bein Bridge Road, Amarapura Township", "Amarapura"),
    ("အမှတ် ၂၀၊ ၇၈ လမ်း၊ ချမ်းမြသာစည်မြို့နယ်", ""),
    ("အမှတ် ၁၁၊ ၃၅ လမ်း၊ မဟာအောင်မြေမြို့နယ်", ""),
])
def test_mandalay_townships(address: str, named: str, tmp_path: Path,
                            kb: KnowledgeBase) -> None:
    web, location = read(tmp_path, page(f"<h1>Guest house</h1><address>{address}</address>"),
                         kb)
    assert web.city is not None and web.city.value == "Mandalay", address
    assert web.city.evidence.endswith(f"({named}, in Mandalay)" if named else '"')
    assert web.country is not None and web.country.value == "MM"
    assert where(location) == ("Mandalay", "Myanmar", True)


# --- Bangkok --------------------------------------------------------------------------------

@pytest.mark.parametrize("address", [
    "Sukhumvit Soi 24, Khlong Toei",
    "ถนนสีลม เขตบางรัก",
    "12 Rama IV Road, Klong Toey 10110",
    # Districts GeoNames does not have, or has without linking them to Bangkok (Nong
    # Chok was a town of its own, outside the target markets).
    "99/1 Ramkhamhaeng Road, Min Buri 10510",
    "222 Vibhavadi Rangsit Road, Don Mueang 10210",
    "88 Moo 4, Liap Khlong Song Road, Nong Chok 10530",
    "เลขที่ 9 ถนนพหลโยธิน แขวงอนุสาวรีย์ เขตบางเขน 10220",
    "15 Soi On Nut 17, Suan Luang 10250",
    # Neighbourhoods.
    "88 Thonglor 10, 10110",
    "ชั้น 3 อาคารสีลมคอมเพล็กซ์ แขวงสีลม 10500",
])
def test_bangkok_districts_and_neighbourhoods(address: str, tmp_path: Path,
                                              kb: KnowledgeBase) -> None:
    html = page(f"<h1>Our clinic</h1><footer><p>ที่อยู่: {address}</p></footer>", lang="th")
    web, location = read(tmp_path, html, kb)
    assert web.city is not None and web.city.value == "Bangkok", address
    assert web.country is not None and web.country.value == "TH"
    assert where(location) == ("Bangkok", "Thailand", True)


# --- a Lao town in Thai script --------------------------------------------------------------

LAO_RESTAURANT = page("""<h1>ร้านอาหารบ้านสวน</h1><p>อาหารไทย-ลาว บรรยากาศริมโขง เปิดทุกวัน</p>
<footer><p>ที่อยู่: 45 ถนนฟ้างุ้ม บ้านมีไซ เมืองจันทะบูลี นครหลวงเวียงจันทน์</p></footer>""",
                      lang="th", title="ร้านอาหารบ้านสวน")


def test_vientiane_in_thai_script_is_in_laos(tmp_path: Path, kb: KnowledgeBase) -> None:
    # นครหลวงเวียงจันทน์ ("Vientiane Capital") was read as นครหลวง, a district of
    # Ayutthaya; and the page's language alone made the country Thailand.
    web, location = read(tmp_path, LAO_RESTAURANT, kb)
    assert web.city is not None and web.city.value == "Vientiane"
    assert web.country is not None and web.country.value == "LA"
    assert web.country.evidence.startswith("city Vientiane: address text:")
    assert where(location) == ("Vientiane", "Laos", False)
    assert location.country_code == "LA"


@pytest.mark.parametrize(("footer", "city", "source"), [
    ("<p>ที่อยู่: 12 ถนนสีสะหว่างวงศ์ บ้านวัดแสน เมืองหลวงพระบาง แขวงหลวงพระบาง</p>"
     "<p>โทร +856 71 212 345</p>", "Luang Prabang", "phone country code +856"),
    ("<p>ที่อยู่: ถนนหมายเลข 13 บ้านท่าหลวง เมืองปากเซ แขวงจำปาสัก สปป.ลาว</p>", "Pakse",
     "country name in address text"),
    ("<p>ที่อยู่: บ้านสะหวันไซ เมืองไกสอน พมวิหาน แขวงสะหวันนะเขต</p>", "Savannakhet",
     "city Savannakhet"),
])
def test_lao_towns_in_thai_script(footer: str, city: str, source: str, tmp_path: Path,
                                  kb: KnowledgeBase) -> None:
    web, location = read(tmp_path, page(f"<h1>ที่พัก</h1><footer>{footer}</footer>",
                                        lang="th"), kb)
    assert web.city is not None and web.city.value == city
    assert web.country is not None and web.country.value == "LA"
    assert web.country.evidence.startswith(source)
    assert where(location) == (city, "Laos", False)


def test_a_small_lao_town_needs_more_than_a_thai_page_to_be_placed(
        tmp_path: Path, kb: KnowledgeBase) -> None:
    """With only the page's language to go on the country is Thailand, where a foreign
    town under 100,000 people is not looked for: no city, rather than a wrong one."""
    html = page("<h1>ที่พัก</h1><footer><p>ที่อยู่: 12 ถนนสีสะหว่างวงศ์ บ้านวัดแสน "
                "เมืองหลวงพระบาง</p></footer>", lang="th")
    web, location = read(tmp_path, html, kb)
    assert web.city is None
    assert where(location) == (None, "Thailand", None)


# --- what must not change ------------------------------------------------------------------

@pytest.mark.parametrize(("body", "phone", "expected"), [
    # A given name that is also a township (Latha) is not the township.
    ("<p>Dr. Latha's Dental Care</p><p>No. 12, Nungambakkam High Road, Chennai 600034</p>",
     "+91 44 2827 1234", ("Chennai", "India", False)),
    # "Bahan" is Malay for "material": only "Bahan Township" is Yangon's.
    ("<p>Kedai Bahan Binaan Seng Heng</p><p>No. 12, Jalan Besar, 43000 Kajang, Selangor</p>",
     "+60 3 8736 1234", ("Kajang", "Malaysia", False)),
    # Golden Valley, Minnesota, on a site placed in the US.
    ("<p>Golden Valley Family Dental</p><p>7801 Olson Memorial Hwy, Golden Valley, "
     "MN 55427</p>", "+1 763 555 0142", ("Golden Valley", "United States", False)),
    # A Bangkok area's name in a business's name in another country.
    ("<p>Silom Thai Kitchen</p><p>1100 South Congress Avenue, Austin, TX 78704</p>",
     "+1 512 555 0100", ("Austin", "United States", False)),
    # A ward of another town called like a Yangon township (Seikkan, "jetty").
    ("<p>Aye Mya Trading</p><p>No. 3, Strand Road, Seikkan Ward, Mawlamyine</p>",
     "+95 57 21234", ("Mawlamyine", "Myanmar", False)),
])
def test_names_that_are_not_the_township(body: str, phone: str,
                                         expected: tuple[str, str, bool], tmp_path: Path,
                                         kb: KnowledgeBase) -> None:
    html = page(f"<h1>Welcome</h1><footer>{body}<p>Tel: {phone}</p></footer>")
    _, location = read(tmp_path, html, kb)
    assert where(location) == expected


@pytest.mark.parametrize(("address", "city"), [
    # Tambon Bang Khen of Nonthaburi: only เขตบางเขน is Bangkok's district.
    ("เลขที่ 5 ม.2 ต.บางเขน อ.เมืองนนทบุรี จ.นนทบุรี 11000", "Mueang Nonthaburi"),
    # Sukhumvit is also Highway 3: it is not read as Bangkok.
    ("456 Sukhumvit-Pattaya Road, Nong Prue, Bang Lamung, Chon Buri 20150", "Bang Lamung"),
    # A Bangkok area's name far from Bangkok, with the province named.
    ("ร้านทองหล่อ 12 ถ.นิมมานเหมินท์ ต.สุเทพ อ.เมือง จ.เชียงใหม่ 50200", "Chiang Mai"),
])
def test_thai_addresses_elsewhere_stay_where_they_are(address: str, city: str,
                                                      tmp_path: Path,
                                                      kb: KnowledgeBase) -> None:
    html = page(f"<h1>ร้านของเรา</h1><footer><p>ที่อยู่: {address}</p></footer>", lang="th")
    web, location = read(tmp_path, html, kb)
    assert web.city is not None and web.city.value == city
    assert location.country == "Thailand" and location.in_target_geography is False


def test_a_hotel_brand_in_prose_is_not_an_address(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Dusit (a Bangkok district and a hotel group) is read only inside an address: a
    Chiang Mai hotel that names the group stays in Chiang Mai, and a page that names it
    only in its prose names no place."""
    chiang_mai = page("""<h1>Lanna Riverside Hotel</h1>
<p>Our chef trained for ten years at the Dusit Thani before opening our kitchen.</p>
<footer><p>Address: 100 Chang Klan Road, Chang Moi, Mueang Chiang Mai, Chiang Mai 50100</p>
</footer>""")
    web, location = read(tmp_path, chiang_mai, kb)
    assert web.city is not None and web.city.value == "Chiang Mai"
    assert where(location) == ("Chiang Mai", "Thailand", False)
    prose = page("<h1>Lanna Riverside Hotel</h1><p>Our chef trained for ten years at the "
                 "Dusit Thani before opening our kitchen.</p>")
    web, location = read(tmp_path, prose, kb)
    assert web.city is None and web.country is None
    assert where(location) == (None, None, None)


def test_a_common_burmese_word_holding_a_township_name_is_not_the_township(
        tmp_path: Path, kb: KnowledgeBase) -> None:
    """အလုံ (Ahlone) begins အလုံး, a common word: the township is matched only as
    အလုံမြို့နယ် ("Ahlone Township"). Here the shop's name holds the word, in Mandalay."""
    html = page("<h1>ဆေးဆိုင်</h1><footer><p>လိပ်စာ</p>"
                "<p>အလုံးစုံ ဆေးဆိုင်၊ အမှတ် ၅၊ ၈၄ လမ်း၊ မန္တလေး</p></footer>", lang="my")
    web, location = read(tmp_path, html, kb)
    assert web.city is not None and web.city.value == "Mandalay"
    assert where(location) == ("Mandalay", "Myanmar", True)


# --- the gazetteer's keys -------------------------------------------------------------------

@pytest.mark.parametrize(("name", "city"), [
    ("Bahan Township", "Yangon"), ("Bahan Tsp", "Yangon"), ("ဗဟန်း", "Yangon"),
    ("ဗဟန်းမြို့နယ်", "Yangon"), ("Latha Township", "Yangon"), ("လသာမြို့နယ်", "Yangon"),
    ("Hlaingthaya", "Yangon"), ("Chanayethazan Tsp", "Mandalay"), ("Amarapura", "Mandalay"),
    ("Patheingyi", "Mandalay"), ("Bang Khen District", "Bangkok"), ("เขตบางเขน", "Bangkok"),
    ("Lat Krabang", "Bangkok"), ("Sathorn", "Bangkok"), ("Thonglor", "Bangkok"),
    ("เวียงจันทน์", "Vientiane"), ("หลวงพระบาง", "Luang Prabang")])
def test_keys_of_townships_and_districts(name: str, city: str) -> None:
    places = gazetteer()
    [hit] = places.city_index.find(Text(name))
    row = hit.rows[0]
    parent = places.city(row).parent
    assert places.city(parent if parent >= 0 else row).name == city


@pytest.mark.parametrize("name", ["Bahan", "Latha", "Hlaing", "Seikkan", "Dala", "လသာ",
                                  "ဆိပ်ကမ်း", "Sukhumvit", "Siam", "สุขุมวิท", "Asok"])
def test_names_matched_only_with_their_district_word_or_left_out(name: str) -> None:
    assert gazetteer().city_index.find(Text(name)) == []


def test_golden_valley_is_yangon_first_and_minnesota_on_a_us_site() -> None:
    places = gazetteer()
    [hit] = places.city_index.find(Text("Golden Valley"))
    assert [(places.city(r).name, places.city(r).country) for r in hit.rows] == [
        ("Yangon", "MM"), ("Golden Valley", "US")]
