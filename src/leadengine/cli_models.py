"""``leadengine models``: the models an endpoint serves, and what the engine knows of them.

Only click and the provider registry are imported here: ``leadengine --help`` imports
every command module, and the backends (httpx) are loaded only when the command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from leadengine.cli_common import _run, _settings, guarded
from leadengine.providers import PROVIDERS

if TYPE_CHECKING:
    from leadengine.evaluators.backends import ModelInfo, ModelListing


@click.command()
@click.option("--provider", type=click.Choice(sorted(PROVIDERS)), default=None,
              help="Provider whose models to list. Default: groq if GROQ_API_KEY is set.")
@click.option("--base-url", default=None,
              help="Another endpoint speaking the provider's wire format, e.g. "
                   "http://localhost:8000/v1 (OpenAI-compatible).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@guarded
def models(provider: str | None, base_url: str | None, as_json: bool) -> None:
    """List the models the provider serves (GET /models): the default, which take a
    strict JSON schema or reasoning_effort, and the price when known."""
    from leadengine.evaluators.backends import list_models

    settings = _settings(provider=provider, base_url=base_url)
    listing = _run(list_models(settings))
    if as_json:
        import json

        click.echo(json.dumps(_as_dict(listing), indent=2))
    else:
        click.echo(_table(listing))
    if not any(m.default for m in listing.models):
        click.echo(f"notice: the default model {listing.default!r} is not served there; "
                   "choose another with --model or LEADENGINE_MODEL", err=True)


def _as_dict(listing: ModelListing) -> dict[str, Any]:
    return {
        "provider": listing.provider,
        "base_url": listing.base_url,
        "default": listing.default,
        "models": [{"id": m.id, "default": m.default, "strict_json_schema": m.strict_schema,
                    "reasoning": m.reasoning,
                    "price": {"input": m.price[0], "output": m.price[1]} if m.price else None}
                   for m in listing.models],
    }


def _table(listing: ModelListing) -> str:
    """A plain-text table: one model a line, ``*`` before the default."""
    header = ("MODEL", "STRICT JSON", "REASONING", "USD/M IN", "USD/M OUT")
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


def _row(model: ModelInfo) -> tuple[str, str, str, str, str]:
    def yes(flag: bool) -> str:
        return "yes" if flag else "-"

    price_in, price_out = (_money(model.price[0]), _money(model.price[1])) if model.price \
        else ("-", "-")
    return model.id, yes(model.strict_schema), yes(model.reasoning), price_in, price_out


def _money(value: float) -> str:
    """0.15 -> ``0.15``, 0.6 -> ``0.60``, 0.075 -> ``0.075``."""
    return f"{value:.2f}" if round(value, 2) == value else f"{value:g}"
