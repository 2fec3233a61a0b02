"""The client against a real Till (scripts/serve-for-clients.ts, one per pytest session, with its
webhook worker running), used as the README tells a merchant to use it. Every test runs with the
sync and with the async client (conftest.Driver). Needs TEST_DATABASE_URL (scripts/python-client.sh
and npm test set it up)."""

from __future__ import annotations

import json
import queue
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List, Optional

import httpx
import pytest

from conftest import MakeDriver, TillServer
from fault_server import Reply, Seen, fault_server
from till_payments import (
    AuthenticationError,
    CreatedSession,
    Event,
    InvalidRequestError,
    NotFoundError,
    RecordWithRefund,
    RefundEventData,
    Session,
    SessionEventData,
    SignatureVerificationError,
    Till,
    TillError,
    WebhookEndpointWithSecret,
    construct_event,
    verify_webhook_signature,
)

pytestmark = pytest.mark.integration


def test_create_pay_read_with_its_record_and_refund_partly_then_fully(make_driver: MakeDriver, till_server: TillServer) -> None:
    do = make_driver()
    created: CreatedSession = do(lambda t: t.create_checkout(
        amount=9900, currency="CNY", description="Order A-1", metadata={"order": "A-1"},
        # Sent in the body as the spec says; test mode ignores it and uses the mock provider.
        provider_hints={"wechat": "shop-2"},
    ))
    assert re.match(r"^sess_[0-9A-Za-z]{24}$", created.id)
    assert created.status == "pending"
    assert created.url == f"{till_server.base_url}/c/{created.id}"
    assert (created.amount, created.currency, created.mode) == (9900, "CNY", "test")
    assert created.expires_at > created.created_at and created.created_at.tzinfo is not None

    pending: Session = do(lambda t: t.get_session(created.id))
    assert (pending.status, pending.chosen_provider, pending.record) == ("pending", "mock", None)

    paid: Session = do(lambda t: t.test_helpers.sessions.pay(created.id))
    assert paid.status == "paid"
    session: Session = do(lambda t: t.get_session(created.id))
    assert session.status == "paid"
    assert session.record is not None
    assert re.match(r"^rec_", session.record.id)
    assert (session.record.amount, session.record.provider) == (9900, "mock")
    assert session.record.paid_at.tzinfo is not None
    record_id = session.record.id

    partial: RecordWithRefund = do(lambda t: t.refund(record_id, amount=1000, reason="damaged"))
    assert (partial.status, partial.refunded_amount) == ("partially_refunded", 1000)
    assert (partial.refund.amount, partial.refund.status, partial.refund.reason) == (1000, "succeeded", "damaged")
    assert re.match(r"^ref_", partial.refund.id)
    assert partial.to_dict()["refundedAmount"] == 1000

    rest: RecordWithRefund = do(lambda t: t.refund(record_id))
    assert (rest.status, rest.refund.amount, rest.refunded_amount) == ("refunded", 8900, 9900)
    assert do(lambda t: t.get_session(created.id)).status == "refunded"


def test_jpy_amounts_are_whole_yen_and_a_pending_refund_settles_through_the_test_helper(make_driver: MakeDriver) -> None:
    do = make_driver()
    created = do(lambda t: t.create_checkout(amount=1500, currency="JPY"))
    paid = do(lambda t: t.test_helpers.sessions.pay(created.id, refund_behavior="pending"))
    assert paid.amount == 1500 and paid.record.amount == 1500
    refunding = do(lambda t: t.refund(paid.record.id))
    assert (refunding.refund.status, refunding.status) == ("pending", "refunding")
    settled = do(lambda t: t.test_helpers.refunds.succeed(refunding.refund.id))
    assert (settled.status, settled.refunded_amount) == ("refunded", 1500)


def test_provider_hints_sent_as_an_extra_field_reach_till(make_driver: MakeDriver, till_server: TillServer) -> None:
    # As the interface specification says to send them; a live key without a configuration
    # labelled shop-2 is refused, naming the hint.
    live = make_driver(api_key=till_server.live_key)
    with pytest.raises(InvalidRequestError) as refused:
        live(lambda t: t.create_checkout(amount=9900, currency="CNY", providerHints={"wechat": "shop-2"}))
    assert (refused.value.code, refused.value.body["error"]) == ("provider_unavailable", "provider wechat/shop-2 not available: invalid_label")


def test_a_session_names_the_language_of_its_pages(make_driver: MakeDriver) -> None:
    do = make_driver()
    created = do(lambda t: t.create_checkout(amount=1500, currency="JPY", locale="zh-HK"))
    assert created.locale == "zh-HK"
    assert do(lambda t: t.get_session(created.id)).locale == "zh-HK"
    assert do(lambda t: t.create_checkout(amount=1500, currency="JPY")).locale is None
    with pytest.raises(InvalidRequestError) as refused:
        do(lambda t: t.create_checkout(amount=1500, currency="JPY", locale="fr"))
    assert (refused.value.code, refused.value.body["error"]) == ("invalid_field", "locale: must be one of en, zh-CN, zh-HK, ja")


def test_errors_by_class_with_status_body_and_request_id(make_driver: MakeDriver, till_server: TillServer) -> None:
    do = make_driver()
    with pytest.raises(NotFoundError) as missing:
        do(lambda t: t.get_session("sess_doesnotexist000000000000"))
    assert missing.value.status == 404
    assert missing.value.body["error"] == "Not found"
    assert missing.value.code == "not_found"
    assert re.match(r"^req_", str(missing.value.request_id))

    created = do(lambda t: t.create_checkout(amount=1000, currency="CNY"))
    record_id = do(lambda t: t.test_helpers.sessions.pay(created.id)).record.id
    do(lambda t: t.refund(record_id, amount=400))
    with pytest.raises(InvalidRequestError) as too_much:
        do(lambda t: t.refund(record_id, amount=601))
    assert too_much.value.status == 400
    assert (too_much.value.body["error"], too_much.value.body["refundable"]) == ("amount exceeds refundable", 600)
    assert str(too_much.value) == "amount exceeds refundable"
    assert too_much.value.code == "amount_exceeds_refundable" == too_much.value.body["code"]

    with pytest.raises(InvalidRequestError) as invalid:
        do(lambda t: t.create_checkout(amount=0, currency="CNY"))
    assert invalid.value.message.startswith("amount: ")
    assert (invalid.value.code, invalid.value.param) == ("invalid_field", "amount")

    with pytest.raises(InvalidRequestError, match="^session is paid$") as terminal:
        do(lambda t: t.test_helpers.sessions.pay(created.id))
    assert terminal.value.code == "session_terminal"

    bad_key = make_driver(api_key="sk_test_" + "x" * 32)
    with pytest.raises(AuthenticationError) as unauthenticated:
        bad_key(lambda t: t.get_session(created.id))
    assert (unauthenticated.value.status, unauthenticated.value.code) == (401, "invalid_api_key")

    # Another mode's key sees nothing: test helpers do not exist for a live key.
    live = make_driver(api_key=till_server.live_key)
    with pytest.raises(NotFoundError) as live_only:
        live(lambda t: t.test_helpers.sessions.pay(created.id))
    assert live_only.value.code == "test_mode_only"


@dataclass
class Forwarded:
    key: Optional[str]
    replayed: Optional[str]
    status: int


@contextmanager
def lossy_proxy(upstream: str, drop: Callable[[int], bool]) -> Iterator[tuple[str, List[Forwarded]]]:
    """Forwards to Till; the answers `drop` names are received from Till and then lost on the way back."""
    forwarded: List[Forwarded] = []
    with httpx.Client(base_url=upstream) as http:
        def script(seen: Seen, n: int) -> Any:
            headers = {k: v for k, v in seen.headers.items() if k not in ("host", "connection", "content-length", "accept-encoding")}
            answer = http.request(seen.method, seen.url, headers=headers, content=seen.body.encode("utf-8") or None)
            forwarded.append(Forwarded(seen.headers.get("idempotency-key"), answer.headers.get("idempotent-replayed"), answer.status_code))
            if drop(n):
                return "reset"
            return Reply(answer.status_code, answer.text, {"request-id": answer.headers.get("request-id", "")})

        with fault_server(script) as srv:
            yield srv.base_url, forwarded


def test_a_refund_whose_answer_is_lost_is_retried_with_the_same_key_and_refunds_once(make_driver: MakeDriver, till_server: TillServer) -> None:
    do = make_driver()
    created = do(lambda t: t.create_checkout(amount=2000, currency="HKD"))
    record_id = do(lambda t: t.test_helpers.sessions.pay(created.id)).record.id

    with lossy_proxy(till_server.base_url, lambda n: n == 1) as (proxy_url, forwarded):
        result = make_driver(base_url=proxy_url)(lambda t: t.refund(record_id, amount=700))
    assert len(forwarded) == 2
    assert forwarded[0].key == forwarded[1].key and forwarded[0].key
    assert (forwarded[0].replayed, forwarded[1].replayed) == (None, "true"), "Till replayed the first answer"
    assert (result.refunded_amount, result.refund.amount) == (700, 700)
    # Refunded once: 1300 is still refundable, not 600.
    with pytest.raises(TillError) as more:
        do(lambda t: t.refund(record_id, amount=1301))
    assert more.value.body["refundable"] == 1300


def test_a_checkout_whose_answer_is_lost_twice_still_makes_one_session(make_driver: MakeDriver, till_server: TillServer) -> None:
    key = f"order-7-checkout-{make_driver().kind}"
    with lossy_proxy(till_server.base_url, lambda n: n <= 2) as (proxy_url, forwarded):
        created = make_driver(base_url=proxy_url)(lambda t: t.create_checkout(amount=300, currency="EUR", idempotency_key=key))
    assert [(f.key, f.replayed, f.status) for f in forwarded] == [(key, None, 200), (key, "true", 200), (key, "true", 200)]
    again = make_driver()(lambda t: t.create_checkout(amount=300, currency="EUR", idempotency_key=key))
    assert again.id == created.id


@dataclass
class Received:
    event: Event
    body: bytes
    header: str


class MerchantReceiver:
    """A merchant's webhook receiver, as the README's recipes: the raw bytes, construct_event, 2xx only when verified."""

    def __init__(self) -> None:
        self.secret = "whsec_not_yet"
        self.received: "queue.Queue[Received]" = queue.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                header = self.headers.get("X-Service-Signature")
                try:
                    event = construct_event(body, header, receiver.secret)
                except SignatureVerificationError as error:
                    self.send_response(400)
                    self.end_headers()
                    self.wfile.write(error.message.encode("utf-8"))
                    return
                receiver.received.put(Received(event, body, str(header)))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/till/webhooks"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def next_for(self, matches: Callable[[Event], bool], timeout: float = 20) -> Received:
        """The next verified delivery whose event matches (others, for other tests' sessions, are skipped)."""
        while True:
            got = self.received.get(timeout=timeout)
            if matches(got.event):
                return got

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_webhook_endpoint_made_with_the_client_gets_events_verified_with_construct_event(make_driver: MakeDriver) -> None:
    do = make_driver()
    rx = MerchantReceiver()
    endpoint: WebhookEndpointWithSecret = do(lambda t: t.webhook_endpoints.create(url=rx.url))
    try:
        rx.secret = endpoint.secret
        assert re.match(r"^whsec_[0-9A-Za-z]{32}$", endpoint.secret)
        assert endpoint.id in [e.id for e in do(lambda t: t.webhook_endpoints.list()).data]
        assert endpoint.id in [e.id for e in do.items(lambda t: t.webhook_endpoints.iterate())]

        created = do(lambda t: t.create_checkout(amount=9900, currency="CNY", metadata={"order": "A-1", "note": "谢谢 🧾"}))
        paid = do(lambda t: t.test_helpers.sessions.pay(created.id))
        first = rx.next_for(lambda e: isinstance(e.data, SessionEventData) and e.data.session_id == created.id)
        event = first.event
        assert event.type == "payment.succeeded"
        assert isinstance(event.data, SessionEventData)
        assert (event.data.record_id, event.data.amount, event.data.currency) == (paid.record.id, 9900, "CNY")
        assert event.data.metadata == {"order": "A-1", "note": "谢谢 🧾"}
        assert event.to_dict() == json.loads(first.body)

        listed = do(lambda t: t.events.list(type="payment.succeeded", limit=100))
        assert event.id in [e.id for e in listed.data]
        assert event.id in [e.id for e in do.items(lambda t: t.events.iterate(type="payment.succeeded", limit=1))]
        detail = do(lambda t: t.events.retrieve(event.id))
        delivery = next(d for d in detail.deliveries if d.endpoint_id == endpoint.id)
        assert delivery.status == "delivered" and delivery.attempts[0].status_code == 200

        # Rotation: both secrets sign for 24 h, so receivers still holding the old one keep working.
        old_secret = endpoint.secret
        rotated = do(lambda t: t.webhook_endpoints.rotate_secret(endpoint.id))
        assert rotated.secret != old_secret and rotated.previous_secret_expires_at is not None
        do(lambda t: t.refund(paid.record.id, amount=1000, reason="破损"))
        second = rx.next_for(lambda e: isinstance(e.data, RefundEventData) and e.data.session_id == created.id)
        assert second.event.type == "refund.succeeded"
        assert isinstance(second.event.data, RefundEventData) and second.event.data.reason == "破损"
        assert len(second.header.split(",")) == 2
        assert Till.construct_event(second.body, second.header, rotated.secret).id == second.event.id
        assert construct_event(second.body, second.header, old_secret).id == second.event.id
        with pytest.raises(SignatureVerificationError):
            construct_event(second.body, second.header, "whsec_" + "x" * 32)
        # The classic mistake: the parsed and re-serialised body no longer verifies.
        assert not verify_webhook_signature(json.dumps(json.loads(second.body), indent=2), second.header, rotated.secret)

        redelivered = do(lambda t: t.events.redeliver(event.id, endpoint_id=endpoint.id))
        assert [s.endpoint_id for s in redelivered.scheduled] == [endpoint.id]
        again = rx.next_for(lambda e: e.id == event.id)
        # The same event; each attempt is signed with a fresh createdAt, so a late retry is not refused as old.
        assert {**again.event.to_dict(), "createdAt": None} == {**event.to_dict(), "createdAt": None}
        assert again.event.created_at > event.created_at

        updated = do(lambda t: t.webhook_endpoints.update(endpoint.id, events=["refund.succeeded"]))
        assert updated.events == ["refund.succeeded"]
        assert do(lambda t: t.webhook_endpoints.update(endpoint.id, events=None)).events is None
    finally:
        deleted = do(lambda t: t.webhook_endpoints.delete(endpoint.id))
        rx.close()
    assert (deleted.id, deleted.deleted) == (endpoint.id, True)
    with pytest.raises(NotFoundError):
        do(lambda t: t.webhook_endpoints.retrieve(endpoint.id))


def test_the_event_list_pages_with_starting_after(make_driver: MakeDriver) -> None:
    do = make_driver()
    sessions = [do(lambda t: t.create_checkout(amount=100 + i, currency="USD")) for i in range(3)]
    for s in sessions:
        do(lambda t: t.test_helpers.sessions.cancel(s.id))
    mine = {s.id for s in sessions}
    canceled: List[Dict[str, Any]] = [e.to_dict() for e in do.items(lambda t: t.events.iterate(type="session.canceled", limit=2))]
    ours = [e for e in canceled if e["data"]["sessionId"] in mine]
    # Newest first, each once, across pages of two.
    assert [e["data"]["sessionId"] for e in ours] == [s.id for s in reversed(sessions)]
    assert len({e["id"] for e in canceled}) == len(canceled)


def test_sessions_records_and_refunds_read_back_and_list_with_filters(make_driver: MakeDriver) -> None:
    do = make_driver()
    order = f"L-{do.kind}-{id(do)}"
    before = datetime.now(timezone.utc) - timedelta(seconds=5)
    created = [do(lambda t: t.create_checkout(amount=500 + i, currency="CNY", description=f"item {i}", metadata={"order": order, "n": str(i)}))
               for i in range(3)]
    paid = do(lambda t: t.test_helpers.sessions.pay(created[0].id))
    record_id = paid.record.id
    first = do(lambda t: t.refund(record_id, amount=100, reason="one"))
    do(lambda t: t.refund(record_id, amount=50))

    # Sessions: by metadata value, newest first, across pages; by status; by creation time.
    mine = do.items(lambda t: t.sessions.iterate(metadata={"order": order}, limit=2))
    assert [s.id for s in mine] == [s.id for s in reversed(created)]
    assert mine[0].description == "item 2" and mine[0].metadata == {"order": order, "n": "2"}
    page = do(lambda t: t.sessions.list(metadata={"order": order, "n": "1"}))
    assert [s.id for s in page.data] == [created[1].id] and page.has_more is False
    assert [s.id for s in do(lambda t: t.sessions.list(metadata={"order": order}, status="paid")).data] == [created[0].id]
    assert [s.id for s in do(lambda t: t.sessions.list(metadata={"order": order}, created_gte=before)).data] == [s.id for s in reversed(created)]
    assert do(lambda t: t.sessions.list(metadata={"order": order}, created_lt=before)).data == []
    assert do(lambda t: t.sessions.retrieve(created[0].id)).record.refunded_amount == 150

    # The record with its refunds; records and refunds listed by their parent.
    record = do(lambda t: t.records.retrieve(record_id))
    assert (record.id, record.session_id, record.status, record.refunded_amount) == (record_id, created[0].id, "partially_refunded", 150)
    assert sorted(r.amount for r in record.refunds) == [50, 100]
    assert all(r.record_id == record_id for r in record.refunds)
    assert [r.id for r in do(lambda t: t.records.list(session_id=created[0].id)).data] == [record_id]
    assert record_id in [r.id for r in do.items(lambda t: t.records.iterate(status="partially_refunded", limit=1))]
    refund = do(lambda t: t.refunds.retrieve(first.refund.id))
    assert (refund.id, refund.record_id, refund.amount, refund.reason, refund.status) == (first.refund.id, record_id, 100, "one", "succeeded")
    listed = do.items(lambda t: t.refunds.iterate(record_id=record_id, limit=1))
    assert [r.amount for r in listed] == [50, 100], "newest first"
    with pytest.raises(NotFoundError):
        do(lambda t: t.records.retrieve("rec_doesnotexist0000000000000"))


def test_the_merchant_cancels_or_expires_an_open_session_and_a_closed_one_is_session_terminal(make_driver: MakeDriver) -> None:
    do = make_driver()
    created = do(lambda t: t.create_checkout(amount=1000, currency="CNY"))
    canceled = do(lambda t: t.sessions.cancel(created.id))
    assert isinstance(canceled, Session)
    assert (canceled.id, canceled.status) == (created.id, "canceled")
    with pytest.raises(InvalidRequestError) as closed:
        do(lambda t: t.sessions.expire(created.id))
    assert (closed.value.status, closed.value.code, str(closed.value)) == (400, "session_terminal", "session is canceled")

    other = do(lambda t: t.create_checkout(amount=1000, currency="CNY"))
    expired = do(lambda t: t.sessions.expire(other.id, idempotency_key=f"expire-{other.id}"))
    assert expired.status == "expired"
    # The same key answers the same again, though the session is no longer open.
    assert do(lambda t: t.sessions.expire(other.id, idempotency_key=f"expire-{other.id}")) == expired
    with pytest.raises(InvalidRequestError):
        do(lambda t: t.sessions.expire(other.id))
