"""The returned objects: snake_case attributes over the wire JSON kept as received."""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timezone

from till_payments import Event, RecordWithRefund, RefundEventData, Session, SessionRecord, TillObject

WIRE = {
    "id": "sess_1", "status": "paid", "url": "http://localhost:8080/c/sess_1", "amount": 1500, "currency": "JPY",
    "expiresAt": "2026-11-21T10:30:00.000Z", "createdAt": "2026-11-21T09:30:00.123Z", "mode": "test", "chosenProvider": "mock",
    "record": {"id": "rec_1", "provider": "mock", "providerRef": "m_1", "amount": 1500, "status": "paid", "paidAt": "2026-11-21T09:31:00.000Z"},
    "aFieldNewerThanThisLibrary": {"x": [1]},
}


def test_attributes_are_snake_case_timestamps_aware_datetimes_and_to_dict_is_the_wire_json() -> None:
    session = Session(WIRE)
    assert session.expires_at == datetime(2026, 11, 21, 10, 30, tzinfo=timezone.utc)
    assert session.created_at.microsecond == 123000 and session.created_at.tzinfo is not None
    assert session.chosen_provider == "mock"
    assert isinstance(session.record, SessionRecord)
    assert session.record.provider_ref == "m_1"
    assert session.record.paid_at.isoformat() == "2026-11-21T09:31:00+00:00"
    assert session.to_dict() == WIRE
    assert session["aFieldNewerThanThisLibrary"] == {"x": [1]}
    assert "record" in session and session.get("nope") is None


def test_the_object_cannot_be_changed_through_what_it_returns() -> None:
    wire = copy.deepcopy(WIRE)
    session = Session(wire)
    session.to_dict()["amount"] = 1
    session.to_dict()["record"]["amount"] = 1
    wire["amount"] = 2
    assert session.amount == 1500 and session.record is not None and session.record.amount == 1500
    event = Event({"id": "evt_1", "type": "refund.succeeded", "createdAt": "2026-11-21T09:30:00.000Z", "mode": "test", "data": {
        "refundId": "ref_1", "recordId": "rec_1", "sessionId": "sess_1", "amount": 100, "refundedAmount": 100,
        "recordStatus": "partially_refunded", "currency": "CNY", "status": "succeeded", "reason": None, "metadata": {"order": "A-1"},
    }})
    assert isinstance(event.data, RefundEventData)
    event.data.metadata["order"] = "changed"
    assert event.data.metadata == {"order": "A-1"}
    assert event.data.refunded_amount == 100 and event.data.record_status == "partially_refunded"


def test_a_session_without_record_equality_repr_and_pickle() -> None:
    pending = {k: v for k, v in WIRE.items() if k != "record"}
    session = Session(pending)
    assert session.record is None
    assert session == Session(pending) and session != Session(WIRE) and session != pending
    assert repr(session).startswith('Session({"id": "sess_1"')
    assert pickle.loads(pickle.dumps(session)) == session
    assert hash(session) == hash(Session(pending))
    assert isinstance(session, TillObject)


def test_a_refund_answer_with_null_fields() -> None:
    record = RecordWithRefund({
        "id": "rec_1", "sessionId": "sess_1", "provider": "mock", "providerRef": "m_1", "amount": 9900, "refundedAmount": 9900,
        "currency": "CNY", "status": "refunded", "mode": "test", "paidAt": "2026-11-21T09:31:00.000Z", "createdAt": "2026-11-21T09:31:00.000Z",
        "refund": {"id": "ref_1", "amount": 9900, "status": "succeeded", "providerRef": None, "reason": None, "createdAt": "2026-11-21T09:32:00.000+08:00"},
    })
    assert record.refund.provider_ref is None and record.refund.reason is None
    assert record.refund.created_at == datetime(2026, 11, 21, 1, 32, tzinfo=timezone.utc)
    assert record.refunded_amount == 9900
