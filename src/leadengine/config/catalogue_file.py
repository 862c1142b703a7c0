"""Reading the model catalogue's files: the bundled ``data/models.toml``, and a user's
read over it (see :mod:`leadengine.config.catalogue` for what an entry holds), each
entry checked as it is read."""

from __future__ import annotations

import datetime
import functools
import re
import tomllib
from collections.abc import Iterable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from leadengine.config.catalogue import (
    REASONING_FIELDS,
    SCHEMA_FIELDS,
    STATUSES,
    Capabilities,
    Catalogue,
    Family,
    ModelEntry,
)
from leadengine.errors import ConfigError

#: The catalogue shipped with the package.
BUNDLED = Path(__file__).resolve().parents[1] / "data" / "models.toml"


def load(user_file: Path | None = None) -> Catalogue:
    """The bundled catalogue with ``user_file`` read over it (cached per process, read
    again when the file changes); :class:`ConfigError` names the file and the entry."""
    if user_file is None:
        return _load(None, None)
    try:
        stat = user_file.stat()
    except OSError as exc:
        raise ConfigError(f"{user_file}: cannot read the model catalogue "
                          f"({exc.strerror or exc})") from None
    return _load(str(user_file), (stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=8)
def _load(user_file: str | None, _version: tuple[int, int] | None) -> Catalogue:
    catalogue = _read(BUNDLED, None)
    if user_file is not None:
        catalogue = _read(Path(user_file), catalogue)
    return catalogue


# -- reading and checking ----------------------------------------------------------------

#: The fields of a [[model]] entry and their kinds.
_MODEL_KEYS = {
    "provider": "text", "id": "text", "aliases": "texts", "status": "status",
    "deprecated": "date", "retires": "date", "replacement": "text", "price": "price",
    "context": "count", "max_output": "count", "schema": "schema", "sampling": "flag",
    "prefill": "flag", "reasoning": "reasoning", "efforts": "texts", "rpm": "count",
    "tpm": "count", "rpd": "count", "tpd": "count", "tier": "text", "source": "text",
    "checked": "date", "note": "text",
}
_FAMILY_KEYS = {"match": "pattern", "providers": "texts", "schema": "schema",
                "sampling": "flag", "prefill": "flag", "reasoning": "reasoning",
                "efforts": "texts", "source": "text", "checked": "date"}
#: Required in every entry of any file; ``status`` too in a model's first entry.
_REQUIRED = ("provider", "id", "source", "checked")
_CAPABILITY_KEYS = ("schema", "sampling", "prefill", "reasoning", "efforts")


class _Bad(ValueError):
    """A value a check refuses; its text says what is allowed."""


def _read(path: Path, base: Catalogue | None) -> Catalogue:
    where = str(path)
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read the model catalogue "
                          f"({exc.strerror or exc})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{where}: not a valid TOML model catalogue ({exc})") from None
    unknown = set(document) - {"checked", "defaults", "model", "family"}
    if unknown:
        raise ConfigError(f"{where}: unknown table or key {sorted(unknown)[0]!r} (a "
                          "catalogue has checked, [defaults], [[model]] and [[family]])")
    checked = _top_date(where, document, base)
    defaults = dict(base.defaults) if base is not None else {}
    raw_defaults = document.get("defaults", {})
    if not isinstance(raw_defaults, dict) or not all(
            isinstance(v, str) and v.strip() for v in raw_defaults.values()):
        raise ConfigError(f"{where}: [defaults] must map providers to model names, e.g. "
                          'groq = "openai/gpt-oss-120b"')
    defaults.update({k: v.strip() for k, v in raw_defaults.items()})
    models = dict(base.models) if base is not None else {}
    for number, raw in enumerate(_tables(where, document, "model"), start=1):
        _add_model(models, _model(where, number, raw, models))
    families = tuple(_family(where, number, raw)
                     for number, raw in enumerate(_tables(where, document, "family"), 1))
    if base is not None:
        families += base.families
    return Catalogue(checked=checked, defaults=defaults, models=models, families=families,
                     files=(*(base.files if base is not None else ()), where))


def _top_date(where: str, document: dict[str, Any], base: Catalogue | None
              ) -> datetime.date:
    if "checked" not in document:
        if base is not None:
            return base.checked
        raise ConfigError(f"{where}: missing 'checked' (the day the catalogue was checked)")
    try:
        return _date(document["checked"])
    except _Bad as exc:
        raise ConfigError(f"{where}: checked {exc}") from None


def _tables(where: str, document: dict[str, Any], name: str) -> list[dict[str, Any]]:
    tables = document.get(name, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{where}: {name} entries must be [[{name}]] tables")
    return tables


def _model(where: str, number: int, raw: dict[str, Any],
           known: dict[tuple[str, str], ModelEntry]) -> ModelEntry:
    """Entry ``number`` of ``where``, checked (and merged over the entry it replaces)."""
    name = f"{raw.get('provider', '?')}/{raw.get('id', '?')}"
    what = f"{where}: model {number} ({name})"
    values = _checked(what, raw, _MODEL_KEYS)
    for key in _REQUIRED:
        if key not in values:
            raise ConfigError(f"{what}: missing field {key!r}")
    provider, model = values["provider"], values["id"]
    before = known.get((provider, model.lower()))
    if before is None and "status" not in values:
        raise ConfigError(f"{what}: missing field 'status' (one of: {', '.join(STATUSES)})")
    capabilities = {k: values.pop(k) for k in _CAPABILITY_KEYS if k in values}
    if "efforts" in capabilities:
        capabilities["efforts"] = tuple(capabilities["efforts"])
    if "aliases" in values:
        values["aliases"] = tuple(values["aliases"])
    given = frozenset(capabilities)
    if before is None:
        return ModelEntry(**values, capabilities=Capabilities(**capabilities), given=given)
    return replace(before, **values, given=before.given | given,
                   capabilities=replace(before.capabilities, **capabilities))


def _add_model(models: dict[tuple[str, str], ModelEntry], entry: ModelEntry) -> None:
    for name in (entry.id, *entry.aliases):
        models[(entry.provider, name.lower())] = entry


def _family(where: str, number: int, raw: dict[str, Any]) -> Family:
    what = f"{where}: family {number} ({raw.get('match', '?')})"
    values = _checked(what, raw, _FAMILY_KEYS)
    for key in ("match", "source", "checked"):
        if key not in values:
            raise ConfigError(f"{what}: missing field {key!r}")
    capabilities = {k: values[k] for k in _CAPABILITY_KEYS if k in values}
    if "efforts" in capabilities:
        capabilities["efforts"] = tuple(capabilities["efforts"])
    return Family(pattern=values["match"], providers=tuple(values.get("providers", ())),
                  capabilities=Capabilities(**capabilities), source=values["source"],
                  checked=values["checked"])


def _checked(what: str, raw: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kind = keys.get(key)
        if kind is None:
            raise ConfigError(f"{what}: unknown field {key!r} (known: {', '.join(keys)})")
        try:
            values[key] = _CHECKS[kind](value)
        except _Bad as exc:
            raise ConfigError(f"{what}: {key} = {value!r} {exc}") from None
    return values


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad("is not a non-empty text")
    return value.strip()


def _texts(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise _Bad("is not a list of texts")
    return [_text(v) for v in value]


def _date(value: Any) -> datetime.date:
    """A TOML date (``2026-11-30``) or the same as text."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise _Bad("is not a date (YYYY-MM-DD)")


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Bad("is not a whole number >= 0")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad("is not true or false")
    return value


def _price(value: Any) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                       for v in value)):
        raise _Bad("is not [input, output] USD per million tokens, e.g. [0.15, 0.60]")
    return float(value[0]), float(value[1])


def _choice(choices: Iterable[str]) -> Any:
    allowed = tuple(choices)

    def check(value: Any) -> str:
        if isinstance(value, str) and value.strip() in allowed:
            return value.strip()
        raise _Bad(f"is not one of: {', '.join(allowed)}")

    return check


def _pattern(value: Any) -> re.Pattern[str]:
    try:
        return re.compile(_text(value), re.I)
    except re.error as exc:
        raise _Bad(f"is not a regular expression ({exc})") from None


_CHECKS: dict[str, Any] = {
    "text": _text, "texts": _texts, "date": _date, "count": _count, "flag": _flag,
    "price": _price, "status": _choice(STATUSES), "schema": _choice(SCHEMA_FIELDS),
    "reasoning": _choice(REASONING_FIELDS), "pattern": _pattern,
}

# Every field of an entry is readable from a file (a test holds the two lists together).
_ENTRY_FIELDS = {f.name for f in fields(ModelEntry)} - {"capabilities", "given"}
