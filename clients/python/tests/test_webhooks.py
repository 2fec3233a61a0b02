"""Webhook verification against the shared vectors (testdata/webhook-signatures.json, also read by
the JavaScript and Go clients): every vector, with the body as bytes, bytearray, memoryview and
str. Plus the mistakes a merchant makes, and what the errors then say."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import till_payments as till
from till_payments import AsyncTill, SessionEventData, SignatureVerificationError, Till, construct_event, verify_webhook_signature

VECTORS_FILE = Path(__file__).resolve().parents[3] / "testdata" / "webhook-signatures.json"
FILE: Dict[str, Any] = json.loads(VECTORS_FILE.read_text("utf-8"))
VECTORS: List[Dict[str, Any]] = FILE["vectors"]


def inputs_of(raw: bytes) -> List[Tuple[str, Any]]:
    inputs: List[Tuple[str, Any]] = [("bytes", raw), ("bytearray", bytearray(raw)), ("memoryview", memoryview(raw))]
    # A str carries the same bytes only when they are valid UTF-8.
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return inputs
    return inputs + [("str", text)]


def test_the_vectors_file_covers_what_the_library_promises() -> None:
    assert FILE["defaultToleranceSeconds"] == till.DEFAULT_TOLERANCE_SECONDS == 300
    names = "\n".join(v["name"] for v in VECTORS)
    for needle in ["non-ASCII", "rotation", "wrong secret", "tampered", "uppercase", "empty header", "expired", "future", "trailing newline"]:
        assert needle in names, f"a vector about {needle}"
    assert any(v["valid"] for v in VECTORS) and any(not v["valid"] for v in VECTORS)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_shared_vector(vector: Dict[str, Any]) -> None:
    raw = base64.b64decode(vector["bodyBase64"])
    tolerance = vector.get("toleranceSeconds", till.DEFAULT_TOLERANCE_SECONDS)
    now = vector.get("now")
    for kind, body in inputs_of(raw):
        for verify in (verify_webhook_signature, Till.verify_webhook_signature, AsyncTill.verify_webhook_signature):
            assert verify(body, vector["header"], vector["secret"]) is vector["valid"], f"verify with {kind}"
        if vector["constructEvent"] == "ok":
            event = Till.construct_event(body, vector["header"], vector["secret"], tolerance, now=now)
            assert event.id == vector["eventId"], f"construct_event with {kind}"
            assert event.to_dict() == json.loads(raw)
        else:
            with pytest.raises(SignatureVerificationError) as info:
                construct_event(body, vector["header"], vector["secret"], tolerance, now=now)
            assert info.value.reason == vector["constructEvent"], f"construct_event with {kind}"


SECRET = "whsec_0123456789abcdefghijklmnopqrstuv"
CREATED = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
BODY = json.dumps({
    "id": "evt_1", "type": "payment.succeeded", "createdAt": CREATED, "mode": "test",
    "data": {"sessionId": "sess_1", "status": "paid", "amount": 9900, "currency": "CNY", "metadata": {"note": "谢谢"},
             "recordId": "rec_1", "provider": "mock", "providerRef": "m_1", "paidAt": CREATED},
}, ensure_ascii=False).encode("utf-8")
HEADER = hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()


def test_a_verified_event_is_typed_with_aware_datetimes_and_its_data_by_type() -> None:
    event = construct_event(BODY, HEADER, SECRET)
    assert event.type == "payment.succeeded"
    assert event.created_at.tzinfo is not None and event.created_at.utcoffset() is not None
    data = event.data
    assert isinstance(data, SessionEventData)
    assert (data.session_id, data.record_id, data.amount, data.metadata) == ("sess_1", "rec_1", 9900, {"note": "谢谢"})
    assert data.paid_at == event.created_at
    # The header as a list (a framework that keeps repeated headers) is read too.
    assert construct_event(BODY, [HEADER], SECRET).id == "evt_1"


def test_a_body_parsed_by_a_framework_is_refused_with_a_message_naming_the_mistake() -> None:
    parsed = json.loads(BODY)
    with pytest.raises(TypeError, match="parsed dict") as info:
        construct_event(parsed, HEADER, SECRET)
    assert "request.body" in str(info.value) and "request.get_data()" in str(info.value)
    with pytest.raises(TypeError, match="given as None"):
        verify_webhook_signature(None, HEADER, SECRET)  # type: ignore[arg-type]
    # Serialised again, the bytes differ: the signature no longer matches.
    again = json.dumps(parsed)
    assert verify_webhook_signature(again, HEADER, SECRET) is False
    with pytest.raises(SignatureVerificationError, match="usual cause") as mismatch:
        construct_event(again, HEADER, SECRET)
    assert mismatch.value.reason == "signature"


def test_a_missing_header_and_a_missing_secret_say_so() -> None:
    headers: List[Any] = [None, "", "sha256=abc", []]
    for header in headers:
        with pytest.raises(SignatureVerificationError, match="No signature found") as info:
            construct_event(BODY, header, SECRET)
        assert info.value.reason == "signature"
    with pytest.raises(TypeError, match="signing secret"):
        verify_webhook_signature(BODY, HEADER, "")


def test_the_tolerance_is_checked_both_ways_and_can_be_raised_or_turned_off() -> None:
    created = datetime.fromisoformat(CREATED.replace("Z", "+00:00")).timestamp()
    with pytest.raises(SignatureVerificationError, match=r"created 301 s ago") as old:
        construct_event(BODY, HEADER, SECRET, now=created + 301)
    assert old.value.reason == "tolerance"
    with pytest.raises(SignatureVerificationError, match=r"in the future"):
        construct_event(BODY, HEADER, SECRET, now=created - 301)
    assert construct_event(BODY, HEADER, SECRET, 4 * 24 * 3600, now=created + 3 * 24 * 3600).id == "evt_1"
    assert construct_event(BODY, HEADER, SECRET, math.inf, now=created + 10**9).id == "evt_1"
    assert construct_event(BODY, HEADER, SECRET, now=datetime.fromtimestamp(created + 299, timezone.utc)).id == "evt_1"
    with pytest.raises(TypeError, match="tolerance_seconds"):
        construct_event(BODY, HEADER, SECRET, -1)


def test_a_signed_body_that_is_not_an_event_is_a_payload_error() -> None:
    for body in (b"not json", b"[1,2]", b'{"id":"evt_1"}', b'{"createdAt":"yesterday"}'):
        header = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        with pytest.raises(SignatureVerificationError) as info:
            construct_event(body, header, SECRET)
        assert info.value.reason == "payload"
