"""Webhook verification, as in @till-payments/node: no network I/O, verify first and parse after, every
signature in the header compared in constant time, and errors that name the usual mistake.
X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw body bytes keyed with the endpoint
secret (`whsec_...`); after a rotation it holds two, comma-separated. The contract is
testdata/webhook-signatures.json, shared with the JavaScript and Go clients.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import time
from datetime import datetime
from typing import Any, Dict, List, Literal, Optional, Sequence, Union, cast

from ._generated import Event
from ._model import parse_datetime

SIGNATURE_HEADER = "X-Service-Signature"
DEFAULT_TOLERANCE_SECONDS = 300

RawBody = Union[bytes, bytearray, memoryview, str]
"""The request body exactly as received: bytes (or a str, encoded as UTF-8)."""
SignatureHeader = Union[str, Sequence[str], None]
"""The header value as the framework hands it over (None when absent)."""

WebhookFailure = Literal["signature", "tolerance", "payload"]


class SignatureVerificationError(Exception):
    """The webhook cannot be trusted; `reason` is "signature", "tolerance" or "payload". Answer 400."""

    def __init__(self, reason: WebhookFailure, message: str) -> None:
        super().__init__(message)
        self.reason: WebhookFailure = reason
        self.message = message


def verify_webhook_signature(raw_body: RawBody, signature_header: SignatureHeader, secret: str) -> bool:
    """True when one of the header's signatures is the body's HMAC-SHA256 under `secret`."""
    body = _to_bytes(raw_body)
    if not isinstance(secret, str) or secret == "":  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError("secret must be the endpoint's signing secret (whsec_...)")
    expected = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).digest()
    matched = False
    # No early exit: the time taken does not depend on which signature, if any, matched.
    for candidate in _signatures_in(signature_header):
        if hmac.compare_digest(candidate, expected):
            matched = True
    return matched


def construct_event(
    raw_body: RawBody,
    signature_header: SignatureHeader,
    secret: str,
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    *,
    now: Optional[Union[datetime, float]] = None,
) -> Event:
    """Verifies the signature, parses the event and checks `createdAt` is within `tolerance_seconds`
    of now, either way (math.inf turns the check off). Raises SignatureVerificationError.
    `now` (a datetime or unix seconds) replaces the clock, for tests."""
    body = _to_bytes(raw_body)
    if not verify_webhook_signature(body, signature_header, secret):
        raise SignatureVerificationError("signature", _MISMATCH if _signatures_in(signature_header) else _NO_SIGNATURE)
    try:
        parsed: object = json.loads(body.decode("utf-8"))
    except ValueError:
        raise SignatureVerificationError("payload", "The webhook body is correctly signed but is not JSON.") from None
    event: Dict[str, Any] = cast(Dict[str, Any], parsed) if isinstance(parsed, dict) else {}
    stamp = event.get("createdAt")
    created_at: Optional[datetime] = None
    if isinstance(stamp, str):
        try:
            created_at = parse_datetime(stamp)
        except ValueError:
            created_at = None
    if created_at is None:
        raise SignatureVerificationError("payload", "The webhook body is correctly signed but is not an event with a createdAt timestamp.")
    if isinstance(tolerance_seconds, bool) or not isinstance(tolerance_seconds, (int, float)) or math.isnan(tolerance_seconds) or tolerance_seconds < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError("tolerance_seconds must be a number >= 0")
    now_seconds = time.time() if now is None else now.timestamp() if isinstance(now, datetime) else float(now)
    age = now_seconds - created_at.timestamp()
    if abs(age) > tolerance_seconds:
        when = f"{math.ceil(age)} s ago" if age > 0 else f"{math.ceil(-age)} s in the future"
        raise SignatureVerificationError(
            "tolerance",
            f"The event was created {when}, outside the tolerance of {tolerance_seconds:g} s. A replayed old delivery is "
            "refused this way; if your clock is wrong, fix it; to accept older retried deliveries, raise tolerance_seconds "
            "and dedupe on event.id.",
        )
    return Event(event)


_NO_SIGNATURE = (
    "No signature found in the X-Service-Signature header value. Pass the header as received "
    "(Django: request.headers['X-Service-Signature'] or request.META['HTTP_X_SERVICE_SIGNATURE'])."
)
_MISMATCH = (
    "No signature in the X-Service-Signature header matches this body and secret. The usual cause: a "
    "framework parsed the JSON body and it was serialised again (request.json, request.get_json(), json.dumps(...)); "
    "any change of whitespace, key order or escaping changes the bytes. Pass the raw request body exactly as received "
    "(Django: request.body; Flask: request.get_data(); FastAPI/Starlette: await request.body()). Otherwise check the "
    "secret: each endpoint, and each mode, has its own whsec_... secret."
)

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def _to_bytes(raw_body: object) -> bytes:
    if isinstance(raw_body, str):
        return raw_body.encode("utf-8")
    if isinstance(raw_body, (bytes, bytearray)):
        return bytes(raw_body)
    if isinstance(raw_body, memoryview):
        return raw_body.tobytes()
    kind = "None" if raw_body is None else f"a parsed {type(raw_body).__name__}"
    raise TypeError(
        f"The webhook body was given as {kind}, not the raw bytes. The signature covers the body exactly as sent: "
        "pass it as bytes or str, e.g. request.body in Django, request.get_data() in Flask, await request.body() in "
        "FastAPI, never the parsed JSON (see the raw-body recipes in the till README)."
    )


def _signatures_in(header: object) -> List[bytes]:
    """Every well-formed entry (64 hex digits, either case) of a comma-separated header; anything else is ignored."""
    if isinstance(header, (list, tuple)):
        value = ",".join(h for h in header if isinstance(h, str))  # pyright: ignore[reportUnknownVariableType]
    elif isinstance(header, str):
        value = header
    else:
        return []
    entries = (s.strip() for s in value.split(","))
    return [bytes.fromhex(s) for s in entries if _HEX64.fullmatch(s)]
