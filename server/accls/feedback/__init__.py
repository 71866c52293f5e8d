"""Local, opt-in store of applied suggestions and the user's edits (SQLite)."""

from accls.feedback.store import (
    ENV_VAR,
    SCHEMA_VERSION,
    FeedbackError,
    FeedbackRecord,
    FeedbackStore,
    default_path,
)

__all__ = [
    "ENV_VAR",
    "SCHEMA_VERSION",
    "FeedbackError",
    "FeedbackRecord",
    "FeedbackStore",
    "default_path",
]
