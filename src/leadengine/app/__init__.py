"""The team's workspace: a web app over the results store (``leadengine serve``).

Importing this package imports FastAPI and Jinja2; the CLI imports it only when
``serve`` runs.
"""

from leadengine.app.server import create_app

__all__ = ["create_app"]
