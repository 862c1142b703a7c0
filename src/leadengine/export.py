"""Stored evaluations out: a flat, CRM-ready CSV (input columns first), JSON Lines, or JSON."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, TextIO

#: The evaluation columns of the CSV, after the input's own columns.
CSV_FIELDS = ("url", "business_name", "business_type", "primary_service", "fit_score",
              "angle", "reasoning", "outreach_angle", "excluded_services", "provider", "model",
              "rag", "warnings", "tokens_prompt", "tokens_completion", "cost_usd")
SIGNALS = ("google_analytics", "google_tag_manager", "meta_pixel", "tiktok_pixel", "hotjar",
           "contact_form", "online_booking", "ecommerce", "facebook_link", "facebook_only",
           "messaging_link", "phone", "email", "address")
LAYERS = ("Visibility", "Website", "Measurement", "Operational", "Asset Ownership")


def flatten(record: dict[str, Any]) -> dict[str, str]:
    """One stored evaluation as one flat row: lists joined with "; ", signals as
    ``signal_<name>`` yes/no, maturity layers as ``maturity_<layer>`` scores."""
    row = {name: record.get(name) for name in CSV_FIELDS}
    row["excluded_services"] = "; ".join(record.get("excluded_services") or [])
    row["warnings"] = "; ".join(record.get("warnings") or [])
    tokens = record.get("tokens") or {}
    row["tokens_prompt"], row["tokens_completion"] = tokens.get("prompt"), tokens.get(
        "completion")
    signals = record.get("signals") or {}
    for name in SIGNALS:
        row[f"signal_{name}"] = "yes" if signals.get(name) else "no"
    row["phones"] = "; ".join(signals.get("phones") or [])
    row["emails"] = "; ".join(signals.get("emails") or [])
    layers = record.get("digital_maturity") or {}
    for layer in LAYERS:
        value = (layers.get(layer) or {}).get("score")
        row[f"maturity_{layer.lower().replace(' ', '_')}"] = value
    return {k: "" if v is None else str(v) for k, v in row.items()}


def write_csv(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write records as CSV; the input's columns (in first-seen order) come first."""
    records = list(records)
    inputs: dict[str, None] = {}
    for record in records:
        inputs.update(dict.fromkeys(record.get("input") or {}))
    rows = [({**{k: "" for k in inputs}, **(record.get("input") or {})}, flatten(record))
            for record in records]
    evaluation_columns = list(rows[0][1]) if rows else list(flatten({}))
    writer = csv.writer(out)
    writer.writerow([*inputs, *evaluation_columns])
    for passthrough, flat in rows:
        writer.writerow([*(passthrough[k] for k in inputs),
                         *(flat[c] for c in evaluation_columns)])
    return len(rows)


def write_jsonl(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    count = 0
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_json(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    items = list(records)
    json.dump(items, out, ensure_ascii=False, indent=2)
    out.write("\n")
    return len(items)


WRITERS = {"csv": write_csv, "jsonl": write_jsonl, "json": write_json}
