"""Errors, as in @till-payments/node: one TillError carrying what the service answered, a subclass per
status so callers can `except NotFoundError`, and APIConnectionError for "no answer at all"."""

from __future__ import annotations

import math
import re
import time
from email.utils import parsedate_to_datetime
from typing import Any, Dict, Mapping, Optional, Type, cast


class TillError(Exception):
    """An answer from Till with a status of 400 or more (or, for APIConnectionError, no answer)."""

    status: int
    """The HTTP status; 0 when no answer arrived (APIConnectionError)."""
    body: Any
    """The parsed JSON body, e.g. `{"error": "amount exceeds refundable", "refundable": 500}`; the text when not JSON."""
    headers: Dict[str, str]
    """The answer's headers, names lower-cased."""
    request_id: Optional[str]
    """The `Request-Id` header of the answer: quote it when asking for help."""

    def __init__(
        self,
        message: Optional[str] = None,
        *,
        status: int = 0,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.status = status
        self.body = body
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.request_id = self.headers.get("request-id")
        self.message = message if message is not None else _message_of(status, body)
        super().__init__(self.message)

    @property
    def code(self) -> Optional[str]:
        """The body's stable machine-readable `code`, when the service sends one."""
        return _string_field(self.body, "code")

    @property
    def param(self) -> Optional[str]:
        """The request field a validation error is about (the body's `param`), when the service sends one."""
        return _string_field(self.body, "param")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, message={self.message!r}, request_id={self.request_id!r})"


class InvalidRequestError(TillError):
    """400: the request was refused as it stands (a field, `amount exceeds refundable`, a terminal session ...)."""


class AuthenticationError(TillError):
    """401: the API key is missing, invalid or revoked."""


class NotFoundError(TillError):
    """404: no such object for this key (another merchant's or the other mode's objects are 404 too)."""


class ConflictError(TillError):
    """409: a request with the same Idempotency-Key is still in progress (retried automatically)."""


class RateLimitError(TillError):
    """429: too many requests for this key (retried automatically, honouring Retry-After)."""

    @property
    def retry_after(self) -> Optional[int]:
        """Seconds the service asked to wait, from the Retry-After header."""
        seconds = parse_retry_after(self.headers.get("retry-after"))
        return None if seconds is None else math.ceil(seconds)


class APIConnectionError(TillError):
    """No answer: a network failure or a timeout, after the retries. The request may or may not have run."""

    timed_out: bool

    def __init__(self, message: str, *, timed_out: bool) -> None:
        super().__init__(message, status=0, body=None)
        self.timed_out = timed_out


_BY_STATUS: Dict[int, Type[TillError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


def error_from_response(status: int, body: Any, headers: Mapping[str, str]) -> TillError:
    """The class for a status: InvalidRequestError for 400, and so on; TillError for the rest (413, 5xx, ...)."""
    return _BY_STATUS.get(status, TillError)(status=status, body=body, headers=headers)


def _message_of(status: int, body: Any) -> str:
    error = _string_field(body, "error")
    return error if error is not None else f"HTTP {status}"


def _string_field(body: Any, name: str) -> Optional[str]:
    if not isinstance(body, dict):
        return None
    value = cast(Dict[str, object], body).get(name)
    return value if isinstance(value, str) else None


_DELTA_SECONDS = re.compile(r"^\d+$")
_HAS_MONTH_NAME = re.compile(r"[A-Za-z]{3}")


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    v = value.strip()
    if _DELTA_SECONDS.match(v):
        return float(v)
    # An HTTP date names a weekday and month; anything else ("-5", "soon") is unreadable.
    if not _HAS_MONTH_NAME.search(v):
        return None
    try:
        at = parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if at.tzinfo is None:
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))
