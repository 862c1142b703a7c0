"""``leadengine users``: the people who may use the workspace (``add``, ``list``,
``revoke``). A person's token is printed once, by ``add``: only its hash is kept."""

from __future__ import annotations

import click

from leadengine.cli.common import _settings, _store, db_option, guarded
from leadengine.config import safe_message
from leadengine.errors import ConfigError


@click.group()
def users() -> None:
    """The people who may use the workspace (`leadengine serve`), each with their own
    token: what they change is recorded under their name."""


@users.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True,
              help="May add and revoke people from the workspace's Settings page.")
@db_option
@guarded
def add(name: str, admin: bool, db: str | None) -> None:
    """Add NAME and print their token, once: give it to them (it is kept only as a hash,
    so a lost token is replaced by revoking NAME and adding them again)."""
    from leadengine.store import add_person

    store = _store(db)
    try:
        person, token = add_person(store.engine, name, admin=admin, by="cli")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    click.echo(token)
    role = "an admin" if person.admin else "a member"
    click.echo(f"added {safe_message(person.name)} as {role} of the workspace at "
               f"{store.name}: the token above is shown only now (they log in with it, or "
               "send it as Authorization: Bearer)", err=True)


@users.command("list")
@db_option
@guarded
def list_people(db: str | None) -> None:
    """List everyone: name, role, when added, last login, and whether revoked (times in
    the time_zone setting)."""
    from leadengine.config import when
    from leadengine.store import people

    found = people(_store(db, create=False).engine)
    if not found:
        click.echo("nobody yet: add someone with `leadengine users add NAME --admin`",
                   err=True)
        return
    zone = _settings().time_zone
    names = [safe_message(person.name) for person in found]
    wide = max(len("name"), *map(len, names))
    click.echo(f"{'name':<{wide}}  {'role':<6}  {'added':<16}  {'last login':<16}  state")
    for person, name in zip(found, names, strict=True):
        state = "revoked " + when(person.revoked_at, zone) if person.revoked_at else "active"
        click.echo(f"{name:<{wide}}  {'admin' if person.admin else 'member':<6}  "
                   f"{when(person.created_at, zone):<16}  "
                   f"{when(person.last_seen_at, zone) or '-':<16}  {state}")


@users.command("revoke")
@click.argument("name")
@db_option
@guarded
def revoke(name: str, db: str | None) -> None:
    """Revoke NAME: their token and open sessions stop working at once (what they did
    stays recorded under their name)."""
    from leadengine.store import revoke_person

    try:
        person = revoke_person(_store(db, create=False).engine, name, by="cli")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    click.echo(f"revoked {safe_message(person.name)}: their token no longer works",
               err=True)
