"""``leadengine models``: the models an endpoint serves, and what the engine knows of them.

Only click and the provider registry are imported here: ``leadengine --help`` imports
every command module, and the backends (httpx) are loaded only when the command runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from leadengine.cli.common import _run, _settings, guarded
from leadengine.config import PROVIDERS
from leadengine.output import counted

if TYPE_CHECKING:
    from leadengine.judgement import ModelCheck, ModelInfo, ModelListing


@click.command()
@click.option("--provider", type=click.Choice(sorted(PROVIDERS)), default=None,
              help="Provider whose models to list. Default: groq if GROQ_API_KEY is set.")
@click.option("--base-url", default=None,
              help="Another endpoint speaking the provider's wire format, e.g. "
                   "http://localhost:8000/v1 (OpenAI-compatible).")
@click.option("--model", default=None,
              help="The model to check with --check (default: the one the settings pick).")
@click.option("--check", is_flag=True,
              help="Check the model the settings pick: served, its lifecycle in the model "
                   "catalogue (days until it retires), price, limits and capabilities; the "
                   "last line is OK, or what to change (exit status 1).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@guarded
def models(provider: str | None, base_url: str | None, model: str | None, check: bool,
           as_json: bool) -> None:
    """List the models the provider serves (GET /models): the default, their status in the
    model catalogue, which take a strict JSON schema or a reasoning effort, and the price
    when known. With --check: is the model the settings pick fit to use today."""
    import json

    settings = _settings(provider=provider, base_url=base_url, model=model)
    if check:
        from leadengine.judgement import check_model

        found = _run(check_model(settings))
        click.echo(json.dumps(_check_dict(found), indent=2) if as_json
                   else "\n".join(check_lines(found)))
        if not found.ok:
            sys.exit(1)
        return
    from leadengine.judgement import list_models

    listing = _run(list_models(settings))
    click.echo(json.dumps(_as_dict(listing), indent=2) if as_json else _table(listing))
    if not any(m.default for m in listing.models):
        click.echo(f"notice: the default model {listing.default!r} is not served there; "
                   "choose another with --model or LEADENGINE_MODEL", err=True)


def check_lines(found: ModelCheck) -> list[str]:
    """``models --check`` as plain lines, the verdict last."""
    entry, info = found.entry, found.info
    lines = [f"provider:     {found.provider} at {found.base_url}"]
    if found.served is None:
        lines.append(f"served:       unknown ({found.list_error})")
    else:
        lines.append(f"served:       {counted(len(found.served), 'model')} (the catalogue knows "
                     f"{found.known})")
    lines.append(f"model:        {found.model} ({found.chosen_by})")
    if entry is None:
        lines.append("status:       not in the model catalogue")
    else:
        lines.append(f"status:       {entry.status_on(found.today)} (checked "
                     f"{entry.checked.isoformat()}: {entry.source})")
        left = entry.days_left(found.today)
        lines.append("retires:      " + ("no date announced" if entry.retires is None else
                                         f"{entry.retires.isoformat()} ({_days(left)})"))
        if entry.replacement:
            lines.append(f"replacement:  {entry.replacement}")
    lines.append("price:        " + (f"${_money(info.price[0])} in / ${_money(info.price[1])}"
                                     " out per million tokens" if info.price else "unknown"))
    lines.append(f"limits:       {_limits(found)}")
    lines.append(f"capabilities: {_capabilities(found)}")
    fallback = ", ".join(found.fallback_models) or "none"
    lines.append(f"fallback:     {'on' if found.fallback else 'off (--no-fallback)'} "
                 f"(fallback models: {fallback}; replacement: {found.replacement or 'none'})")
    lines += [f"note:         {remark}" for remark in found.remarks]
    lines.append(found.verdict)
    return lines


def _days(left: int | None) -> str:
    if left is None:
        return ""
    return f"in {left} days" if left >= 0 else f"{-left} days ago"


def _limits(found: ModelCheck) -> str:
    names = {"rpm": "requests/min", "tpm": "tokens/min", "rpd": "requests/day",
             "tpd": "tokens/day"}
    shown = [f"{value:,} {names[kind]}" for kind, value in found.limits.items() if value]
    tier = f" ({found.entry.tier} tier)" if found.entry and found.entry.tier else ""
    return ", ".join(shown) + tier if shown else "none known (429s are waited out)"


def _capabilities(found: ModelCheck) -> str:
    capabilities = found.capabilities
    parts = [f"strict JSON schema ({capabilities.schema})" if capabilities.schema
             else "no strict schema (JSON mode)",
             "temperature" if capabilities.sampling else "no sampling parameters"]
    if capabilities.reasoning:
        parts.append(f"{capabilities.reasoning}: {'|'.join(capabilities.efforts) or 'any'}")
    if capabilities.prefill is False:
        parts.append("no prefill")
    return ", ".join(parts)


def _check_dict(found: ModelCheck) -> dict[str, Any]:
    entry = found.entry
    return {
        "provider": found.provider, "base_url": found.base_url, "model": found.model,
        "chosen_by": found.chosen_by,
        "served": None if found.served is None else found.model.lower() in {
            name.lower() for name in found.served},
        "models_served": found.served, "models_list_error": found.list_error,
        "status": entry.status_on(found.today) if entry else None,
        "retires": entry.retires.isoformat() if entry and entry.retires else None,
        "days_left": entry.days_left(found.today) if entry else None,
        "replacement": found.replacement,
        "price": ({"input": found.info.price[0], "output": found.info.price[1]}
                  if found.info.price else None),
        "limits": found.limits, "strict_json_schema": found.info.strict_schema,
        "reasoning": found.info.reasoning,
        "source": entry.source if entry else None,
        "checked": entry.checked.isoformat() if entry else None,
        "fallback": found.fallback, "fallback_models": list(found.fallback_models),
        "remarks": found.remarks, "ok": found.ok, "verdict": found.verdict,
    }


def _as_dict(listing: ModelListing) -> dict[str, Any]:
    return {
        "provider": listing.provider,
        "base_url": listing.base_url,
        "default": listing.default,
        "models": [{"id": m.id, "default": m.default, "status": m.status,
                    "retires": m.retires.isoformat() if m.retires else None,
                    "strict_json_schema": m.strict_schema, "reasoning": m.reasoning,
                    "price": {"input": m.price[0], "output": m.price[1]} if m.price else None}
                   for m in listing.models],
    }


def _table(listing: ModelListing) -> str:
    """A plain-text table: one model a line, ``*`` before the default."""
    header = ("MODEL", "STATUS", "STRICT JSON", "REASONING", "USD/M IN", "USD/M OUT")
    rows = [header, *(_row(m) for m in listing.models)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [f"{listing.provider} at {listing.base_url}: {len(listing.models)} models "
             f"(* = default, {listing.default})"]
    for row, model in zip(rows, [None, *listing.models], strict=True):
        mark = "*" if model is not None and model.default else " "
        lines.append(f"{mark} " + "  ".join(cell.ljust(width)
                                            for cell, width in zip(row, widths, strict=True)
                                            ).rstrip())
    return "\n".join(lines)


def _row(model: ModelInfo) -> tuple[str, str, str, str, str, str]:
    def yes(flag: bool) -> str:
        return "yes" if flag else "-"

    price_in, price_out = (_money(model.price[0]), _money(model.price[1])) if model.price \
        else ("-", "-")
    status = model.status or "-"
    if model.retires is not None and model.status != "retired":
        status += f" (retires {model.retires.isoformat()})"
    return (model.id, status, yes(model.strict_schema), yes(model.reasoning), price_in,
            price_out)


def _money(value: float) -> str:
    """0.15 -> ``0.15``, 0.6 -> ``0.60``, 0.075 -> ``0.075``."""
    return f"{value:.2f}" if round(value, 2) == value else f"{value:g}"
