"""``leadengine serve``: the team's workspace (a web app) over the results store.

Only click and the shared CLI helpers are imported up front; FastAPI, uvicorn and
Jinja2 are imported when the command runs, so ``leadengine --help`` stays fast.
"""

from __future__ import annotations

import ipaddress

import click

from leadengine.cli.common import _settings, guarded, work_begins
from leadengine.errors import ConfigError


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: What to do when nobody can log in.
NOBODY = ("nobody can log in: add a person first (`leadengine users add NAME --admin` prints "
          "their token), or pass --no-auth on 127.0.0.1 for a workspace only you can reach")


def team_token(host: str, no_auth: bool, env: dict[str, str] | None = None) -> str | None:
    """The old shared team token ($LEADENGINE_TOKEN, a secret like the API keys: from the
    environment or .env, never from leadengine.toml), None when it is not set or with
    --no-auth (on loopback only)."""
    source = _settings().environ() if env is None else env  # tests pass their own
    token = source.get("LEADENGINE_TOKEN", "").strip()
    if no_auth:
        if not is_loopback(host):
            raise ConfigError(f"--no-auth is only allowed on a loopback host (127.0.0.1, "
                              f"::1, localhost), not {host}")
        return None
    if not token:
        return None
    if len(token) < 16:
        raise ConfigError("LEADENGINE_TOKEN is too short: use 16 characters or more "
                          "(e.g. python -c 'import secrets; print(secrets.token_urlsafe())')")
    return token


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 for the whole network).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--db", default=None,
              help="Results database: a file path (SQLite) or a URL such as "
                   "postgresql://... (default: $LEADENGINE_DB or ./leadengine.db).")
@click.option("--allow-private", is_flag=True,
              help="Allow private, loopback and link-local addresses (SSRF guard off) for "
                   "what the workspace fetches.")
@click.option("--no-auth", is_flag=True,
              help="No login at all (only with a loopback --host).")
@guarded
def serve(host: str, port: int, db: str | None, allow_private: bool, no_auth: bool) -> None:
    """Serve the team's workspace: the leads board, each lead's report, its status and
    notes, and the runs, over the store `batch` writes (created empty if there is none
    yet). Everyone logs in with their own token (`leadengine users add NAME`); the old
    shared $LEADENGINE_TOKEN still works, as an admin called "team", for this release."""
    settings = _settings()
    token = team_token(host, no_auth, settings.environ())
    target = db or settings.db
    if token is None and not no_auth:
        _check_someone(target)
    try:
        import uvicorn

        from leadengine.app import create_app
    except ImportError as exc:
        raise ConfigError(f"the workspace needs {exc.name or 'its web packages'}, which is "
                          "not installed: pip install 'leadengine[serve]'") from None

    from leadengine.store import missing_database

    fresh = missing_database(target)
    app = create_app(settings, target, token, allow_private, auth=not no_auth)
    if fresh:
        click.echo(f"workspace: created an empty results database at {target} (start a "
                   "batch from the Batches page, or with `leadengine batch`)", err=True)
    if token is not None:
        click.echo("warning: LEADENGINE_TOKEN, the shared team token, works as an admin "
                   "called \"team\" for this release only: give each person their own "
                   "token with `leadengine users add NAME` and then unset it", err=True)
    if settings.webhooks:
        click.echo(f"webhooks: lead.evaluated (fit {settings.webhook_min_fit} or more) and "
                   f"lead.status_changed to {len(settings.webhooks)} URL"
                   f"{'' if len(settings.webhooks) == 1 else 's'}", err=True)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"workspace on http://{shown}:{port}/"
               + (" (no authentication)" if no_auth else ""), err=True)
    work_begins()
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)


def _check_someone(target: str) -> None:
    """ConfigError unless someone may log in to the store at ``target`` (a store that
    does not exist yet has nobody: it is not created for a workspace nobody can use)."""
    from leadengine.store import Store, anyone, missing_database

    if missing_database(target):
        raise ConfigError(NOBODY)
    store = Store(target)
    try:
        if not anyone(store.engine):
            raise ConfigError(NOBODY)
    finally:
        store.engine.dispose()
