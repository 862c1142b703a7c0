"""The business-category classifier: sources in order of strength, words in many scripts,
the generic words that mislead, the taxonomy file's validation, and its speed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from leadengine.errors import ConfigError
from leadengine.website.category import (
    CATEGORIES,
    DEFAULT_TAXONOMY,
    NO_WORDS,
    SHELL,
    Category,
    CategoryClues,
    classify,
    load_taxonomy,
)

FILLER = ("Welcome to our website. We are happy to see you here and we look forward to "
          "meeting you soon. Please contact us with any question you may have today. ")


def clues(**fields: Any) -> CategoryClues:
    """Clues with enough ordinary words that the page is not a JavaScript shell."""
    fields.setdefault("text", FILLER)
    return CategoryClues(**fields)


# --- the strongest source: a specific JSON-LD @type -----------------------------------


def test_a_specific_json_ld_type_decides() -> None:
    result = classify(clues(json_ld_types=("WebSite", "Organization", "Dentist")))
    assert (result.value, result.confidence) == ("healthcare", 0.9)
    assert result.evidence == "JSON-LD @type Dentist"


def test_a_json_ld_type_written_as_a_url_or_with_a_prefix() -> None:
    assert classify(clues(json_ld_types=("https://schema.org/Restaurant",))).value == \
        "food_beverage"
    assert classify(clues(json_ld_types=("schema:Hotel",))).value == "hospitality"


def test_generic_json_ld_types_say_nothing() -> None:
    result = classify(clues(json_ld_types=("Organization", "LocalBusiness", "WebPage")))
    assert (result.value, result.evidence) == ("other", NO_WORDS)


def test_the_json_ld_evidence_adds_the_agreeing_words() -> None:
    result = classify(clues(json_ld_types=("Dentist",), title="Smile Dental Clinic"))
    assert result.evidence == 'JSON-LD @type Dentist; title: "dental clinic"'


def test_of_two_typed_categories_the_words_pick_one() -> None:
    # A dentist's page also types the university the dentist studied at.
    result = classify(clues(json_ld_types=("EducationalOrganization", "Dentist"),
                            title="Bright Smile Dentist", text=FILLER + "dental implants"))
    assert result.value == "healthcare"
    assert result.evidence.startswith("JSON-LD @type Dentist; title:")


def test_words_that_strongly_disagree_overrule_the_type() -> None:
    # A template's leftover type on a restaurant's site.
    result = classify(clues(
        json_ld_types=("Dentist",), title="Golden Spoon Restaurant | Thai Cuisine",
        description="Restaurant and bakery: our food menu, catering and takeaway.",
        text=FILLER + "Book a table at our restaurant. Our chef cooks seafood. " * 3))
    assert result.value == "food_beverage"
    assert result.evidence.startswith("words overrule JSON-LD @type Dentist; title: ")


# --- words: title, headings, text, in several scripts ------------------------------------


def test_title_words() -> None:
    result = classify(clues(title="Sunrise Dental Clinic | Bangkok"))
    assert result.value == "healthcare"
    assert result.evidence == 'title: "dental clinic"'
    assert 0.6 <= result.confidence <= 0.85


def test_the_name_and_the_headings_count() -> None:
    result = classify(clues(name="Harbour View Hotel", headings=("Rooms", "Hotel facilities")))
    assert result.value == "hospitality"
    assert result.evidence == 'name: "hotel"; headings: hotel ×1, rooms ×1'


def test_thai_text() -> None:
    text = ("คลินิกทันตกรรมของเรายินดีต้อนรับ บริการจัดฟัน ทำฟัน และตรวจสุขภาพฟันโดยทันตแพทย์ "
            "ผู้เชี่ยวชาญ เปิดทุกวัน ") * 2
    result = classify(clues(title="ยินดีต้อนรับ", text=text))
    assert result.value == "healthcare"
    assert "text: คลินิกทันตกรรม ×2" in result.evidence


def test_thai_restaurant() -> None:
    result = classify(clues(title="ร้านอาหารบ้านสวน", text=FILLER + "เมนูอาหารไทย อร่อย"))
    assert result.value == "food_beverage"
    assert result.evidence.startswith('title: "ร้านอาหาร"')


def test_burmese_text() -> None:
    text = "ရန်ကုန်မြို့ရှိ ဟိုတယ် ဖြစ်ပါသည်။ " * 3 + "တည်းခိုခန်း အခန်းများ ရရှိနိုင်ပါသည်။ " * 3
    result = classify(clues(text=FILLER + text))
    assert result.value == "hospitality"
    assert result.evidence == "text: ဟိုတယ် ×3, တည်းခိုခန်း ×3"


def test_burmese_clinic_title() -> None:
    result = classify(clues(title="ရွှေ သွားဆေးခန်း"))
    assert (result.value, result.evidence) == ("healthcare", 'title: "သွားဆေးခန်း"')


def test_japanese() -> None:
    result = classify(clues(title="さくら歯科クリニック", text=FILLER + "患者様の診療時間のご案内"))
    assert result.value == "healthcare"
    assert result.evidence == 'title: "歯科", "クリニック"; text: 患者 ×1, 診療 ×1'


def test_korean() -> None:
    result = classify(clues(title="서울 영어 학원", headings=("수업 안내", "강의 시간표")))
    assert result.value == "education"
    assert result.evidence == 'title: "학원"; headings: 수업 ×1, 강의 ×1'


@pytest.mark.parametrize(("title", "category"), [
    ("上海物流有限公司", "logistics"),
    ("Nha khoa Sài Gòn", "healthcare"),
    ("Bengkel Mobil Jaya", "automotive"),
    ("চৌধুরী ডেন্টাল", "healthcare"),
    ("مطعم الشام", "food_beverage"),
    ("शर्मा कोचिंग सेंटर", "education"),
])
def test_common_words_of_other_languages(title: str, category: str) -> None:
    assert classify(clues(title=title)).value == category


# --- generic words that mislead ----------------------------------------------------------


def test_a_gym_that_mentions_health() -> None:
    text = FILLER + ("Our gym has personal trainers for your health and fitness. Health is "
                     "wealth: join our health club classes. Good health for everyone. ")
    result = classify(clues(title="Iron Temple Gym", text=text))
    assert result.value == "fitness"
    assert "health club" in result.evidence


def test_a_software_house_that_mentions_engineering() -> None:
    text = FILLER + ("Our engineering team builds web applications and mobile apps. "
                     "Engineering quality and clean engineering practices. ")
    result = classify(clues(title="Nimbus Labs - Software Development", text=text))
    assert result.value == "software_it"
    assert result.evidence.startswith('title: "software development"')


def test_a_visa_agency() -> None:
    text = FILLER + ("We handle retirement visa, education visa and visa extension requests, "
                     "work permit applications and the 90-day report. ")
    result = classify(clues(title="Siam Visa Services", text=text,
                            headings=("Visa services", "Our education visa packages")))
    assert result.value == "professional_services"
    assert 'title: "visa services"' in result.evidence
    assert "education" not in result.evidence.replace("education visa", "")


def test_a_visa_card_is_a_payment_logo_not_a_visa_agency() -> None:
    text = FILLER + "Pay by Visa card, Visa/Mastercard or bank transfer. Fresh bread daily."
    result = classify(clues(title="Morning Bakery", text=text))
    assert result.value == "food_beverage"
    assert "visa" not in result.evidence.lower()


def test_an_engineering_manufacturer_is_not_healthcare() -> None:
    text = FILLER + ("We are an OEM manufacturer of precision parts: CNC machining and sheet "
                     "metal fabrication for medical devices, medical equipment and the "
                     "automotive industry. Our factory is ISO 9001 certified. ")
    result = classify(clues(title="Precision Engineering Co., Ltd.", text=text))
    assert result.value == "manufacturing"
    assert result.evidence.startswith('title: "precision engineering"')


def test_menu_in_the_navigation_is_no_food_word() -> None:
    result = classify(clues(headings=("Home", "Menu", "About", "Shop", "Contact")))
    assert result.value == "other"


def test_patient_education_is_healthcare_and_skin_care_is_beauty() -> None:
    result = classify(clues(title="Patient education", text=FILLER + "See a doctor."))
    assert (result.value, result.evidence) == (
        "healthcare", 'title: "patient education"; text: doctor ×1')
    assert classify(clues(title="Skincare and facials")).value == "beauty_wellness"


def test_whole_words_with_plurals() -> None:
    assert classify(clues(title="Our clinics")).evidence == 'title: "clinic"'
    assert classify(clues(title="Clinical sidebar")).value == "other"  # no clinic, no bar


def test_regex_terms_match_word_families() -> None:
    result = classify(clues(title="Orthodontist", text=FILLER + "Gynaecology and orthodontics."))
    assert result.value == "healthcare"
    assert result.evidence == ('title: "orthodontist"; '
                               "text: gynaecology ×1, orthodontics ×1")


def test_a_repeated_word_cannot_dominate() -> None:
    # "restaurant" 50 times in the text counts 3 times (9 points); a hotel title, 12.
    result = classify(clues(title="Riverside Hotel", text=FILLER + "restaurant " * 50))
    assert result.value == "hospitality"


def test_separators_inside_terms() -> None:
    assert classify(clues(title="Thai Import/Export Co.")).value == "trading"


# --- third-party services ------------------------------------------------------------------


def test_service_kinds_add_points() -> None:
    result = classify(clues(service_kinds=("restaurant", "form")))
    assert (result.value, result.evidence) == ("food_beverage", "services: restaurant")


def test_an_appointment_tool_alone_is_only_a_hint() -> None:
    result = classify(clues(service_kinds=("appointment",)))
    assert result.value == "other"
    assert result.evidence.startswith("too few category words (healthcare: services:")


# --- nothing to go on ------------------------------------------------------------------------


def test_a_javascript_shell() -> None:
    result = classify(CategoryClues(title="Loading...", text="You need to enable JavaScript."))
    assert result.value == "other"
    assert result.confidence <= 0.2
    assert result.evidence == SHELL


def test_a_javascript_shell_with_a_telling_title() -> None:
    result = classify(CategoryClues(title="eSIM Myanmar - Connectivity", text=""))
    assert result.value == "telecom"
    assert result.evidence.startswith('title: "esim"')


def test_words_that_match_nothing() -> None:
    result = classify(clues(title="Welcome"))
    assert (result.value, result.evidence) == ("other", NO_WORDS)
    assert result.confidence <= 0.2


# --- the result --------------------------------------------------------------------------------


def test_category_as_dict_and_rounding() -> None:
    result = Category("retail", 0.123456, "title: \"online shop\"")
    assert result.as_dict() == {"value": "retail", "confidence": 0.12,
                                "evidence": "title: \"online shop\""}
    with pytest.raises(ValueError, match="unknown category"):
        Category("bakery", 0.5, "")


def test_more_evidence_more_confidence() -> None:
    one = classify(clues(title="Dentist"))
    many = classify(clues(title="Dentist", description="Dental clinic: root canal, implants",
                          text=FILLER + "dentist dentistry orthodontics " * 3))
    mixed = classify(clues(title="Dentist and Restaurant"))
    assert one.value == many.value == "healthcare"
    assert many.confidence > one.confidence > mixed.confidence


# --- the taxonomy file ---------------------------------------------------------------------------


def test_the_bundled_taxonomy_covers_every_category_and_is_cached() -> None:
    tax = load_taxonomy()
    assert load_taxonomy() is tax
    assert set(tax.about) == set(CATEGORIES)
    assert all(tax.about.values())
    assert tax.types["dentist"] == "healthcare"
    assert "organization" not in tax.types and "localbusiness" not in tax.types


def test_the_file_header_describes_every_category() -> None:
    header = [line for line in DEFAULT_TAXONOMY.read_text(encoding="utf-8").splitlines()
              if line.startswith("#")]
    for category in CATEGORIES:
        assert any(line.split()[1:2] == [category] for line in header), category


MINIMAL = {"weights": {"strong": 3, "normal": 1, "weak": 0.3},
           "categories": {"healthcare": {"about": "clinics", "strong": ["dentist"]}}}


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "categories.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_a_minimal_taxonomy_loads(tmp_path: Path) -> None:
    tax = load_taxonomy(write(tmp_path, MINIMAL))
    assert tax.terms["dentist"] == ("dentist", "healthcare", 3.0)
    assert tax.terms["dentists"] == ("dentist", "healthcare", 3.0)


@pytest.mark.parametrize(("change", "entry", "problem"), [
    ({"categories": {"bakery": {"about": "bread", "strong": ["bread"]}}},
     "categories.bakery", "unknown category"),
    ({"categories": {"healthcare": {"strong": ["dentist"]}}},
     "categories.healthcare", "missing key 'about'"),
    ({"categories": {"healthcare": {"about": "clinics", "strong": ["/gyn(a/"]}}},
     "categories.healthcare.strong", "term '/gyn(a/': bad regex: missing )"),
    ({"categories": {"healthcare": {"about": "clinics", "strong": ["dentist"],
                                    "normal": ["Dentist"]}}},
     "categories.healthcare.normal", "term 'Dentist' is already listed under healthcare"),
    ({"categories": {"healthcare": {"about": "clinics", "words": ["dentist"]}}},
     "categories.healthcare.words", "unknown key"),
    ({"categories": {"healthcare": {"about": "clinics", "strong": "dentist"}}},
     "categories.healthcare.strong", "expected a list of non-empty strings"),
    ({"weights": {"strong": 3}}, "weights", "expected {strong: N, normal: N, weak: N}"),
    ({"services": {"hotel": {"lodging": 4}}}, "services.hotel", "expected {category: points}"),
    ({"categories": None}, "categories", "missing"),
])
def test_a_broken_taxonomy_names_the_file_and_the_entry(
        tmp_path: Path, change: dict[str, object], entry: str, problem: str) -> None:
    path = write(tmp_path, {**MINIMAL, **change})
    with pytest.raises(ConfigError) as caught:
        load_taxonomy(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {entry}: ")
    assert problem in message


def test_a_file_that_is_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "categories.yaml"
    path.write_text("categories: [unclosed\n  healthcare: {", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read the category taxonomy") as caught:
        load_taxonomy(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    with pytest.raises(ConfigError, match="cannot read"):
        load_taxonomy(tmp_path / "missing.yaml")


def test_the_bundled_file_is_next_to_the_package() -> None:
    assert DEFAULT_TAXONOMY.is_file()
    assert DEFAULT_TAXONOMY.parent.parent.name == "leadengine"


# --- speed --------------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", [
    "Our dental clinic offers teeth whitening, implants and braces. We also love food, "
    "hotels, software and the gym. Lorem ipsum dolor sit amet, consectetur adipiscing. ",
    "คลินิกทันตกรรมของเรายินดีต้อนรับ ร้านอาหาร โรงแรม ฟิตเนส บริการจัดฟัน ",
    "ရန်ကုန် သွားဆေးခန်း ဟိုတယ် စားသောက်ဆိုင် ကျောင်း ",
    "歯科クリニックでは患者様の健康を第一に考えています。서울 치과 병원 안내. ",
])
def test_classify_is_fast_on_20000_characters(sample: str) -> None:
    text = (sample * (20_000 // len(sample) + 1))[:20_000]
    page = CategoryClues(title="Home", headings=("Home", "About", "Menu") * 30, text=text)
    classify(page)  # the taxonomy is loaded once, before the clock starts
    runs = 20
    start = time.perf_counter()
    for _ in range(runs):
        classify(page)
    assert (time.perf_counter() - start) / runs < 0.020


def test_a_compiled_taxonomy_is_kept_and_read_back_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading and compiling the categories file costs every command about 110 ms: the
    result is kept in the cache folder and read back the same (its regexes compiled
    from the same patterns); a copy that cannot be read is compiled again, and an
    edited file never meets the copy of the old one."""
    from leadengine.website.category import _load, _matches

    monkeypatch.setenv("LEADENGINE_CACHE_DIR", str(tmp_path / "cache"))
    built = _load.__wrapped__(DEFAULT_TAXONOMY)
    [kept] = (tmp_path / "cache" / "categories").glob("taxonomy-*.marshal")
    read = _load.__wrapped__(DEFAULT_TAXONOMY)
    assert read == built  # the same terms, and regexes of the same patterns
    text = "Smile Dental Clinic: our dentists offer implants and braces; ร้านอาหาร, 歯科"
    assert _matches(read, text) == _matches(built, text) != {}
    kept.write_text("{", encoding="utf-8")
    assert _load.__wrapped__(DEFAULT_TAXONOMY) == built
    edited = tmp_path / "categories.yaml"
    edited.write_text(DEFAULT_TAXONOMY.read_text(encoding="utf-8") + "\n# edited\n",
                      encoding="utf-8")
    assert _load.__wrapped__(edited).terms == built.terms
    assert len(list((tmp_path / "cache" / "categories").glob("taxonomy-*.marshal"))) == 2
