"""Benchmark: ``batch --engine ray`` against the local engine on one machine (issue 16).

Run from the repository root, with a PostgreSQL server to write to::

    python -m bench.bench_ray --pg postgresql://user@127.0.0.1:5432/postgres [--urls 1000]

One realistic small page (``tests/fixtures/sites/bangkok-dental-fb-only``) is served by
a :class:`~tests.fakes.site_server.SiteServer` under ``--urls`` distinct addresses;
``python -m leadengine batch`` runs in a subprocess three times, heuristic evaluator,
``--method keyword``, ``--max-pages 0``, each on a new database of that server (dropped
afterwards):

* ``local``: the local engine (its default workers);
* ``ray``: ``--engine ray --address HOST:PORT``, joining a Ray instance of this
  machine's cores that the bench started before (as a batch joins a running cluster:
  ``ray start --head`` once, then ``--address auto``);
* ``ray-cold``: ``--engine ray`` with no address, the command starting a Ray instance of
  its own and stopping it at the end (about 5 s of Ray's own start and stop, whatever
  the batch's size), reported.

Reported: each wall time, the ratios to the local engine's, and whether the stored
evaluations are the same (every field but ids, run ids and times).

Target: ``ray`` wall time <= 1.5 x the local engine's, same results (``ray-cold``'s
ratio is reported beside it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bench.harness import (
    REPO,
    RESULTS_DIR,
    compile_package,
    make_parser,
    run_info,
    verdict,
    write_results,
)
from leadengine.store import Store, database_url
from tests.fakes.site_server import SiteServer

RESULTS = RESULTS_DIR / "ray.json"
PAGE = REPO / "tests" / "fixtures" / "sites" / "bangkok-dental-fb-only" / "index.html"
TARGET_RATIO = 1.5
VOLATILE = {"id", "run_id", "created_at", "elapsed_s", "timings", "fetched_at"}


@contextmanager
def new_database(server: str) -> Iterator[str]:
    """A new database on ``server``, dropped afterwards; its URL."""
    server = database_url(server)
    name = f"leadengine_bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    try:
        yield sa.engine.make_url(server).set(database=name).render_as_string(
            hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


def run(source: Path, db: str, engine: str, concurrency: int,
        address: str | None = None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEADENGINE_")}
    env.update({"LEADENGINE_HOST_DELAY": "0", "LEADENGINE_CONFIG": "no-such.toml"})
    command = [sys.executable, "-m", "leadengine", "batch", str(source), "--db", db,
               "--engine", engine, "--concurrency", str(concurrency), "--per-host",
               str(concurrency), "--provider", "heuristic", "--allow-private",
               "--max-pages", "0", "--no-cache", "--method", "keyword"]
    if address is not None:
        command += ["--address", address]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{engine} batch failed:\n{done.stderr}")
    stored = {r["url"]: {k: v for k, v in r.items() if k not in VOLATILE}
              for r in Store(db).evaluations()}
    return {"wall_s": round(wall, 2), "stored": stored,
            "summary": done.stderr.strip().splitlines()[-2]}


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--pg", default=os.environ.get("TEST_POSTGRES_URL"),
                        help="PostgreSQL server URL (default: $TEST_POSTGRES_URL)")
    parser.add_argument("--urls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--quick", action="store_true", help="200 URLs")
    args = parser.parse_args()
    compile_package()
    if args.quick:
        args.urls = 200
    if not args.pg:
        raise SystemExit("error: give --pg postgresql://... (or set TEST_POSTGRES_URL)")
    with tempfile.TemporaryDirectory() as tmp, SiteServer(PAGE.parent) as sites:
        sites.route("/lead/", body=PAGE.read_text(encoding="utf-8"))
        source = Path(tmp) / "urls.txt"
        source.write_text("".join(sites.url(f"lead/?id={i}") + "\n"
                                  for i in range(args.urls)), encoding="utf-8")
        results = {}
        for label, engine in (("local", "local"), ("ray-cold", "ray")):
            with new_database(args.pg) as db:
                results[label] = run(source, db, engine, args.concurrency)
        import ray

        ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
        try:
            address = str(ray.get_runtime_context().gcs_address)
            with new_database(args.pg) as db:
                results["ray"] = run(source, db, "ray", args.concurrency, address)
        finally:
            ray.shutdown()
    same = all(results[label]["stored"] == results["local"]["stored"]
               for label in ("ray", "ray-cold"))
    count = len(results["ray"]["stored"])
    ratio = results["ray"]["wall_s"] / results["local"]["wall_s"]
    cold = results["ray-cold"]["wall_s"] / results["local"]["wall_s"]
    for label in ("local", "ray", "ray-cold"):
        print(f"{label:8s} wall {results[label]['wall_s']:7.2f} s  "
              f"{results[label]['summary']}")
    print(f"ray-cold / local wall time {cold:.2f} (the command starting and stopping Ray "
          f"itself)")
    print(f"ray / local wall time {ratio:.2f} (target <= {TARGET_RATIO}); "
          f"{count} stored, same results: {same} -> {verdict(ratio <= TARGET_RATIO and same)}")
    write_results(RESULTS, {**run_info(args), "urls": args.urls,
                            "local_wall_s": results["local"]["wall_s"],
                            "ray_wall_s": results["ray"]["wall_s"], "ratio": round(ratio, 3),
                            "ray_cold_wall_s": results["ray-cold"]["wall_s"],
                            "cold_ratio": round(cold, 3),
                            "same_results": same, "stored": count})
    sys.exit(0 if ratio <= TARGET_RATIO and same else 1)


if __name__ == "__main__":
    main()
