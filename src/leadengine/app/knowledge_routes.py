"""The knowledge base in the workspace: list its files and sections, view one rendered,
edit one with the load-time validation (to be built)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
