"""The webhooks' bodies as OpenAPI 3.1 ``webhooks`` (in ``/openapi.json``, beside the
API): what a receiver gets for each event. The bodies themselves are built by
:mod:`leadengine.store.outbox`; a test checks that they match these models."""

from __future__ import annotations

from typing import Literal

from fastapi import FastAPI
from pydantic import BaseModel, Field


class WebhookAnswer(BaseModel):
    """A question's answer: the value, the sentence quoted from the site, its page."""

    value: str | int = Field(description="yes, no or unknown; a number; an option; a text")
    evidence: str
    source: str
    confidence: float = Field(ge=0, le=1)


class WebhookLead(BaseModel):
    """The lead an event is about (its latest evaluation)."""

    id: int = Field(description="the evaluation's id (the lead's page is /leads/{id})")
    url: str
    path: str = Field(description="the lead's page in the workspace: /leads/{id}")
    business_name: str
    business_type: str
    category: str = Field(description="the category's value (beauty_wellness ...)")
    city: str
    country: str
    fit_score: int = Field(ge=0, le=100)
    primary_service: str
    outreach_angle: str
    phones: list[str] = Field(description="E.164 numbers")
    emails: list[str]
    owner: str = Field(description="the input file's owner column")
    run_id: int
    answers: dict[str, WebhookAnswer] = Field(
        default_factory=dict, description="the questions' answers, by question id")


class LeadEvaluated(BaseModel):
    """A lead was evaluated and stored, with a fit score at least the
    ``webhook_min_fit`` setting."""

    id: str = Field(description="the event's id, the same on every retry "
                                "(X-Leadengine-Delivery): evaluation-{id}")
    type: Literal["lead.evaluated"]
    created_at: str = Field(description="ISO 8601, UTC")
    lead: WebhookLead


class LeadStatusChanged(BaseModel):
    """Someone changed a lead's status in the workspace."""

    id: str = Field(description="the event's id, the same on every retry: status-{id}")
    type: Literal["lead.status_changed"]
    created_at: str = Field(description="ISO 8601, UTC")
    lead: WebhookLead
    status: Literal["new", "contacted", "replied", "qualified", "won", "lost"]
    previous_status: Literal["new", "contacted", "replied", "qualified", "won", "lost"]
    changed_by: str = Field(description="the person who changed it")


def describe_webhooks(app: FastAPI) -> None:
    """Add both events to the app's OpenAPI document."""

    @app.webhooks.post("lead.evaluated")
    def lead_evaluated(body: LeadEvaluated) -> None:
        """Sent for every stored evaluation whose fit score is at least
        ``webhook_min_fit``. Headers: X-Leadengine-Event, X-Leadengine-Delivery,
        X-Leadengine-Signature (sha256=<hex HMAC-SHA256 of the raw body under
        LEADENGINE_WEBHOOK_SECRET>). Answer 2xx; anything else is retried."""

    @app.webhooks.post("lead.status_changed")
    def lead_status_changed(body: LeadStatusChanged) -> None:
        """Sent when a lead's status changes, with who changed it. Same headers and
        retries as lead.evaluated."""
