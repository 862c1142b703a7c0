"""Times as the team reads them: YYYY-MM-DD HH:MM in the time_zone setting (Asia/Bangkok
unless set), the same in the CLI, the exports and the workspace."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.cli import cli
from leadengine.config import Settings, when
from leadengine.store import Store, update
from tests.test_app import TOKEN, fill

#: 2026-12-07 07:05 UTC: 14:05 in Bangkok, 13:35 in Yangon.
MOMENT = 1796627100.0


def test_when_writes_the_zone_s_wall_clock() -> None:
    assert when(MOMENT) == "2026-12-07 14:05"
    assert when(MOMENT, "Asia/Yangon") == "2026-12-07 13:35"
    assert when(None) == ""


def test_runs_and_exports_use_the_time_zone_setting(tmp_path: Path) -> None:
    db = fill(tmp_path / "r.db")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET started_at = ?", (MOMENT,))
    store = Store(db)
    first = next(iter(store.evaluations()))
    update(store.engine, first["url"], "ann", status="contacted")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE lead_events SET at = ?", (MOMENT,))
    store.engine.dispose()
    bangkok = CliRunner().invoke(cli, ["runs", "--db", str(db)])
    assert " 2026-12-07 14:05 " in bangkok.stdout
    yangon = CliRunner(env={"LEADENGINE_TIME_ZONE": "Asia/Yangon"}).invoke(
        cli, ["runs", "--db", str(db)])
    assert " 2026-12-07 13:35 " in yangon.stdout
    exported = CliRunner(env={"LEADENGINE_TIME_ZONE": "Asia/Yangon"}).invoke(
        cli, ["export", "--db", str(db), "--format", "csv"])
    assert "2026-12-07 13:35" in exported.stdout
    wrong = CliRunner(env={"LEADENGINE_TIME_ZONE": "Yangon"}).invoke(
        cli, ["runs", "--db", str(db)])
    assert wrong.exit_code == 1 and wrong.stderr == (
        "error: LEADENGINE_TIME_ZONE='Yangon' is not a time zone (an IANA name such as "
        "Asia/Bangkok or Asia/Yangon)\n")


def test_the_workspace_shows_times_in_the_time_zone(tmp_path: Path) -> None:
    db = fill(tmp_path / "r.db")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET started_at = ?", (MOMENT,))
    app = create_app(Settings(time_zone="Asia/Yangon"), db, TOKEN)
    page = TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}).get("/runs").text
    assert "<time>2026-12-07 13:35</time>" in page
