"""New batches in the workspace: upload or paste, run in the background, live progress
(to be built)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
