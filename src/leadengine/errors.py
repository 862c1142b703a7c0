"""One small error tree. Every message is written for the person at the terminal.

    LeadEngineError            base: the CLI prints ``error: <message>`` and exits 1
    ├── ConfigError            bad option, unknown provider/method, missing key
    │   └── ModelUnavailable   the model is retired or not served, and no other can
    │                          take over: a batch stops, its rows left to do
    ├── KnowledgeError         knowledge dir missing/empty, bad file, bad front matter
    ├── StoreError             the results database cannot be opened, read or written
    ├── FetchError             the page could not be fetched (carries the URL)
    │   └── ContentError       fetched, but not usable HTML (PDF, image, empty page)
    └── LLMError               the model could not give a valid evaluation
        └── QuotaExhausted     the day's request limit is used up: a batch stops
"""

from __future__ import annotations


class LeadEngineError(Exception):
    """Base of every error the engine raises on purpose; ``str()`` is the user message."""


class ConfigError(LeadEngineError):
    """A setting, option or credential is missing or invalid."""


class ModelUnavailable(ConfigError):
    """The model is retired or not served, and no other model can take over (fallback
    is off, or none is left): every further row would fail the same way, so a batch
    stops (the row is not recorded as failed, and a rerun resumes there)."""


class KnowledgeError(LeadEngineError):
    """The knowledge base cannot be loaded."""


class StoreError(LeadEngineError):
    """The results database cannot be opened, read or written."""

    def __init__(self, message: str, cause: str = "") -> None:
        super().__init__(message)
        #: The database driver's own message, when there is one.
        self.cause = cause

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return type(self), (str(self), self.cause)


class FetchError(LeadEngineError):
    """A page could not be fetched."""

    def __init__(self, url: str, message: str) -> None:
        super().__init__(f"{url}: {message}")
        self.url = url
        self.detail = message

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        # Raised in a page-reader process and re-raised here: rebuilt from its parts.
        return type(self), (self.url, self.detail)


class ContentError(FetchError):
    """A page was fetched but holds nothing we can evaluate."""


class LLMError(LeadEngineError):
    """The language model failed or did not return a valid evaluation."""


class QuotaExhausted(LLMError):
    """No more requests may be sent today; every further row would fail the same way, so
    a batch stops (the row is not recorded as failed, and a rerun resumes there)."""


#: The errors after which every further row of a batch would fail alike: the batch
#: stops starting rows, stores what it started, and raises the error.
BATCH_STOPS: tuple[type[LeadEngineError], ...] = (QuotaExhausted, ModelUnavailable)
