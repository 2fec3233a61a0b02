"""Requests, retries and errors against a fault-injecting local server (tests/fault_server.py), with
the sync and the async client alike: what a merchant sees when the network or Till misbehaves.
Backoff is made tiny (or recorded instead of slept), so nothing here waits for a race to settle."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import socket
import time
from email.utils import formatdate
from typing import Any, Callable, Dict, List, Type

import httpx
import pytest

from fault_server import Reply, Seen, fault_server
from till_payments import (
    NOT_GIVEN,
    APIConnectionError,
    AsyncTill,
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    Till,
    TillError,
)
from till_payments._request import SenderConfig, SyncSender

KEY = "sk_test_0123456789abcdefghijklmnopqrstuv"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
SESSION = {
    "id": "sess_1", "status": "pending", "url": "http://x/c/sess_1", "amount": 9900, "currency": "CNY",
    "expiresAt": "2026-11-21T10:30:00.000Z", "createdAt": "2026-11-21T09:30:00.000Z", "mode": "test",
}
RECORD = {
    "id": "rec_1", "sessionId": "sess_1", "provider": "mock", "providerRef": "m_1", "amount": 9900, "refundedAmount": 100,
    "currency": "CNY", "status": "partially_refunded", "mode": "test", "paidAt": "2026-11-21T09:31:00.000Z",
    "createdAt": "2026-11-21T09:31:00.000Z",
    "refund": {"id": "ref_1", "amount": 100, "status": "succeeded", "providerRef": None, "reason": None, "createdAt": "2026-11-21T09:32:00.000Z"},
}

Call = Callable[[Any], Any]


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """run(base_url, lambda till: till.method(...), **config): the call made with Till or AsyncTill."""
    kind: str = request.param

    def runner(base_url: str, call: Call, **config: Any) -> Any:
        options: Dict[str, Any] = {"retry_base_ms": 1, "retry_max_ms": 4, **config}
        if kind == "sync":
            with Till(KEY, base_url=base_url, **options) as till:
                return call(till)

        async def main() -> Any:
            async with AsyncTill(KEY, base_url=base_url, **options) as till:
                result = call(till)
                return await result if inspect.isawaitable(result) else result

        return asyncio.run(main())

    return runner


def raises(run: Callable[..., Any], base_url: str, call: Call, **config: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        run(base_url, call, **config)
    return info.value


def test_a_post_answered_503_then_reset_then_200_is_sent_three_times_with_one_generated_key(run: Callable[..., Any]) -> None:
    def script(_s: Seen, n: int) -> Any:
        return Reply(503, {"error": "service unavailable"}) if n == 1 else "reset" if n == 2 else Reply(200, SESSION)

    with fault_server(script) as srv:
        session = run(srv.base_url, lambda t: t.create_checkout(amount=9900, currency="CNY"))
    assert session.to_dict() == SESSION
    assert len(srv.seen) == 3
    keys = srv.keys()
    assert UUID4.match(str(keys[0]))
    assert keys == [keys[0]] * 3
    assert [s.body for s in srv.seen] == ['{"amount":9900,"currency":"CNY"}'] * 3


def test_each_call_gets_its_own_key_and_the_callers_key_is_sent_as_given_on_every_attempt(run: Callable[..., Any]) -> None:
    with fault_server(lambda _s, n: Reply(500) if n == 3 else Reply(200, RECORD)) as srv:
        def calls(t: Any) -> Any:
            if isinstance(t, AsyncTill):
                async def go() -> None:
                    await t.refund("rec_1")
                    await t.refund("rec_1")
                    await t.refund("rec_1", amount=100, idempotency_key="refund-order-42")
                return go()
            t.refund("rec_1")
            t.refund("rec_1")
            t.refund("rec_1", amount=100, idempotency_key="refund-order-42")

        run(srv.base_url, calls)
    keys = srv.keys()
    assert keys[0] != keys[1]
    assert keys[2:] == ["refund-order-42", "refund-order-42"]
    assert json.loads(srv.seen[2].body) == {"recordId": "rec_1", "amount": 100}


def test_requests_carry_the_key_and_compact_utf8_json_leave_out_none_and_pass_extra_fields_through(run: Callable[..., Any]) -> None:
    with fault_server(lambda _s, _n: Reply(200, SESSION)) as srv:
        run(srv.base_url + "/", lambda t: t.create_checkout(
            amount=1500, currency="JPY", description=None, metadata={"note": "谢谢 🧾"}, success_url="https://shop.example/done",
            provider_hints={"wechat": "shop-2"}, futureField={"a": 1},
        ))
    s = srv.seen[0]
    assert s.method == "POST"
    assert s.url == "/api/v1/checkout"
    assert s.headers["authorization"] == f"Bearer {KEY}"
    assert s.headers["content-type"] == "application/json"
    assert re.match(r"^till-python/0\.1\.0 python/3\.\d+", s.headers["user-agent"])
    assert json.loads(s.body) == {
        "amount": 1500, "currency": "JPY", "metadata": {"note": "谢谢 🧾"}, "successUrl": "https://shop.example/done",
        "providerHints": {"wechat": "shop-2"}, "futureField": {"a": 1},
    }
    assert "谢谢" in s.body, "non-ASCII is sent as UTF-8, as JSON.stringify does"
    assert ", " not in s.body


def test_an_extra_field_naming_an_argument_is_sent_when_the_argument_is_not_and_refused_only_when_they_differ(run: Callable[..., Any]) -> None:
    # The interface specification tells merchants to send providerHints as an extra field.
    hints = {"wechat": "shop-2"}
    with fault_server(lambda _s, _n: Reply(200, SESSION)) as srv:
        run(srv.base_url, lambda t: t.create_checkout(amount=9900, currency="CNY", providerHints=hints))
        run(srv.base_url, lambda t: t.create_checkout(amount=9900, currency="CNY", provider_hints=hints, providerHints=dict(hints)))
        run(srv.base_url, lambda t: t.create_checkout(amount=9900, currency="CNY", success_url=None, successUrl="https://shop.example/done"))
        conflicts = [
            ("provider_hints", "providerHints", lambda t: t.create_checkout(amount=9900, currency="CNY", provider_hints=hints, providerHints={"wechat": "shop-3"})),
            ("success_url", "successUrl", lambda t: t.create_checkout(amount=9900, currency="CNY", success_url="https://a.example", successUrl="https://b.example")),
            ("expires_in_seconds", "expiresInSeconds", lambda t: t.create_checkout(amount=9900, currency="CNY", expires_in_seconds=600, expiresInSeconds=900)),
        ]
        for argument, field, call in conflicts:
            error = raises(run, srv.base_url, call)
            assert isinstance(error, TypeError)
            assert str(error) == f"the argument {argument} and the extra field {field} differ: give one of them"
    assert [json.loads(s.body) for s in srv.seen] == [
        {"amount": 9900, "currency": "CNY", "providerHints": hints},
        {"amount": 9900, "currency": "CNY", "providerHints": hints},
        {"amount": 9900, "currency": "CNY", "successUrl": "https://shop.example/done"},
    ], "a conflict is refused before anything is sent"


def test_get_sends_no_key_and_ids_are_url_encoded_a_missing_id_raises_before_any_request(run: Callable[..., Any]) -> None:
    with fault_server(lambda _s, _n: Reply(200, SESSION)) as srv:
        run(srv.base_url, lambda t: t.get_session("sess_a/../b?c"))
        assert isinstance(raises(run, srv.base_url, lambda t: t.get_session(None)), TypeError)
        error = raises(run, srv.base_url, lambda t: t.test_helpers.sessions.fail(""))
        assert isinstance(error, TypeError) and "non-empty string" in str(error)
    assert srv.seen[0].method == "GET"
    assert srv.seen[0].url == "/api/v1/sessions/sess_a%2F..%2Fb%3Fc"
    assert "idempotency-key" not in srv.seen[0].headers
    assert len(srv.seen) == 1


def test_test_helpers_post_to_their_paths_with_an_empty_object_when_nothing_is_given(run: Callable[..., Any]) -> None:
    with fault_server(lambda _s, n: Reply(200, RECORD if n == 4 else {**SESSION, "chosenProvider": "mock"})) as srv:
        run(srv.base_url, lambda t: t.test_helpers.sessions.pay("sess_1"))
        run(srv.base_url, lambda t: t.test_helpers.sessions.pay("sess_1", refund_behavior="pending", idempotency_key="k1"))
        run(srv.base_url, lambda t: t.test_helpers.sessions.expire("sess_1", idempotency_key="k2"))
        run(srv.base_url, lambda t: t.test_helpers.refunds.succeed("ref_1"))
    assert [(s.url, s.body) for s in srv.seen] == [
        ("/api/v1/test_helpers/sessions/sess_1/pay", "{}"),
        ("/api/v1/test_helpers/sessions/sess_1/pay", '{"refundBehavior":"pending"}'),
        ("/api/v1/test_helpers/sessions/sess_1/expire", "{}"),
        ("/api/v1/test_helpers/refunds/ref_1/succeed", "{}"),
    ]
    assert srv.keys()[1:3] == ["k1", "k2"]


def test_none_means_null_where_null_is_a_value_and_not_given_leaves_the_field_out(run: Callable[..., Any]) -> None:
    endpoint = {"id": "we_1", "url": "http://x", "mode": "test", "events": None, "enabled": False,
                "previousSecretExpiresAt": None, "createdAt": SESSION["createdAt"], "updatedAt": SESSION["createdAt"]}
    with fault_server(lambda _s, _n: Reply(200, endpoint)) as srv:
        run(srv.base_url, lambda t: t.webhook_endpoints.update("we_1", enabled=False, events=None))
        run(srv.base_url, lambda t: t.webhook_endpoints.update("we_1", url="http://y"))
        run(srv.base_url, lambda t: t.webhook_endpoints.update("we_1", events=NOT_GIVEN, enabled=True))
        run(srv.base_url, lambda t: t.events.list(limit=5, type="refund.succeeded"))
        run(srv.base_url, lambda t: t.webhook_endpoints.delete("we_1"))
    assert [(s.method, s.url, s.body) for s in srv.seen] == [
        ("PATCH", "/api/v1/webhook_endpoints/we_1", '{"events":null,"enabled":false}'),
        ("PATCH", "/api/v1/webhook_endpoints/we_1", '{"url":"http://y"}'),
        ("PATCH", "/api/v1/webhook_endpoints/we_1", '{"enabled":true}'),
        ("GET", "/api/v1/events?limit=5&type=refund.succeeded", ""),
        ("DELETE", "/api/v1/webhook_endpoints/we_1", ""),
    ]
    assert all("idempotency-key" not in s.headers for s in srv.seen)


@pytest.mark.parametrize(
    "status, body, cls",
    [
        (400, {"error": "amount exceeds refundable", "refundable": 500, "code": "amount_exceeds_refundable"}, InvalidRequestError),
        (401, {"error": "invalid API key"}, AuthenticationError),
        (404, {"error": "Not found"}, NotFoundError),
    ],
)
def test_400_401_and_404_are_not_retried_and_map_to_their_classes(run: Callable[..., Any], status: int, body: Dict[str, Any], cls: Type[TillError]) -> None:
    with fault_server(lambda _s, _n: Reply(status, body, {"request-id": f"req_{status}"})) as srv:
        error = raises(run, srv.base_url, lambda t: t.refund("rec_1", amount=600))
    assert type(error) is cls
    assert isinstance(error, TillError)
    assert error.status == status
    assert error.body == body
    assert error.message == body["error"] == str(error)
    assert error.code == body.get("code")
    assert error.request_id == f"req_{status}"
    assert error.headers["request-id"] == f"req_{status}"
    assert len(srv.seen) == 1, f"{status} is sent once"


def test_an_error_body_that_is_not_json_is_kept_as_text(run: Callable[..., Any]) -> None:
    with fault_server(lambda _s, _n: Reply(413, "<html>too large</html>")) as srv:
        error = raises(run, srv.base_url, lambda t: t.get_session("sess_1"))
    assert type(error) is TillError
    assert isinstance(error, TillError) and error.body == "<html>too large</html>" and error.message == "HTTP 413" and error.code is None


def test_409_is_retried_with_the_same_key_until_the_replay_answers(run: Callable[..., Any]) -> None:
    in_flight = Reply(409, {"error": "a request with this idempotency key is still in progress"})
    with fault_server(lambda _s, n: in_flight if n < 3 else Reply(200, SESSION)) as srv:
        assert run(srv.base_url, lambda t: t.create_checkout(amount=1, currency="USD")).id == "sess_1"
    assert len(srv.seen) == 3
    assert len(set(srv.keys())) == 1


@pytest.mark.parametrize("status, cls", [(500, TillError), (409, ConflictError), (429, RateLimitError)])
def test_after_the_retries_the_last_answer_is_raised(run: Callable[..., Any], status: int, cls: Type[TillError]) -> None:
    headers = {"retry-after": "0"} if status == 429 else None
    with fault_server(lambda _s, _n: Reply(status, {"error": f"e{status}"}, headers)) as srv:
        error = raises(run, srv.base_url, lambda t: t.create_checkout(amount=1, currency="EUR"), max_retries=3)
    assert type(error) is cls
    assert len(srv.seen) == 4, f"{status}: 1 attempt + 3 retries"
    assert len(set(srv.keys())) == 1


def test_a_429_waits_for_retry_after_before_the_retry(run: Callable[..., Any]) -> None:
    times: List[float] = []

    def script(_s: Seen, n: int) -> Any:
        times.append(time.monotonic())
        return Reply(429, {"error": "rate limit exceeded"}, {"retry-after": "1"}) if n == 1 else Reply(200, SESSION)

    with fault_server(script) as srv:
        run(srv.base_url, lambda t: t.get_session("sess_1"))
    assert times[1] - times[0] >= 0.99, f"waited {times[1] - times[0]:.3f} s"


def recording_sender(base_url: str, **over: Any) -> tuple[SyncSender, List[float]]:
    sleeps: List[float] = []
    options: Dict[str, Any] = dict(api_key=KEY, base_url=base_url, timeout_ms=5000, max_retries=3, retry_base_ms=100, retry_max_ms=300, max_retry_after_ms=60_000)
    options.update(over)
    return SyncSender(SenderConfig(**options), httpx.Client(), sleep=sleeps.append), sleeps


def test_retry_after_in_seconds_or_as_an_http_date_sets_the_wait_without_it_backoff_doubles_with_jitter() -> None:
    date = formatdate(time.time() + 30, usegmt=True)
    answers = [Reply(429, None, {"retry-after": "2"}), Reply(503, None, {"retry-after": date}), Reply(200, {})]
    with fault_server(lambda _s, n: answers[n - 1]) as srv:
        sender, sleeps = recording_sender(srv.base_url)
        sender.request("POST", "/api/v1/refunds", body={})
    assert sleeps[0] == 2
    assert 28 < sleeps[1] <= 30, f"HTTP date: {sleeps[1]} s"

    with fault_server(lambda _s, _n: Reply(502)) as srv:
        sender, sleeps = recording_sender(srv.base_url, max_retries=4)
        with pytest.raises(TillError):
            sender.request("GET", "/x")
    assert len(sleeps) == 4
    a, b, c, d = sleeps
    assert 0.05 <= a <= 0.1 and 0.1 <= b <= 0.2 and 0.15 <= c <= 0.3 and 0.15 <= d <= 0.3, sleeps


def test_a_retry_after_beyond_max_retry_after_ms_is_not_waited_for() -> None:
    with fault_server(lambda _s, _n: Reply(429, {"error": "rate limit exceeded"}, {"retry-after": "3600"})) as srv:
        sender, sleeps = recording_sender(srv.base_url)
        with pytest.raises(RateLimitError) as info:
            sender.request("GET", "/x")
    assert info.value.retry_after == 3600
    assert sleeps == []
    assert len(srv.seen) == 1


def test_a_server_that_never_answers_times_out_per_attempt_with_the_same_key(run: Callable[..., Any]) -> None:
    with fault_server(lambda _s, _n: "hang") as srv:
        error = raises(run, srv.base_url, lambda t: t.refund("rec_1"), timeout_ms=100, max_retries=2)
    assert isinstance(error, APIConnectionError) and isinstance(error, TillError)
    assert error.timed_out is True
    assert error.status == 0
    assert str(error) == "POST /api/v1/refunds timed out after 100 ms (3 attempts)"
    # Under heavy load an attempt can time out before the server has read it, so only "at most 3".
    assert 1 <= len(srv.seen) <= 3
    assert len(set(srv.keys())) == 1


def test_a_refused_connection_names_the_cause_and_per_call_max_retries_applies(run: Callable[..., Any]) -> None:
    # A port that was just listening and no longer is: nothing accepts there.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    error = raises(run, f"http://127.0.0.1:{port}", lambda t: t.get_session("sess_1", max_retries=0))
    assert isinstance(error, APIConnectionError)
    assert error.timed_out is False
    assert str(error) == "GET /api/v1/sessions/sess_1 failed: ECONNREFUSED (1 attempt)"


def test_the_configuration_is_checked_when_the_client_is_made() -> None:
    with pytest.raises(TypeError, match="api_key is required"):
        Till("")
    with pytest.raises(ValueError, match=r"http\(s\)"):
        Till(KEY, base_url="localhost:8080")
    with pytest.raises(ValueError):
        AsyncTill(KEY, base_url="not a url")
    assert "sk_test" not in repr(Till(KEY)), "the key is never shown"


def test_the_client_closes_its_connections_and_leaves_a_given_httpx_client_open() -> None:
    with Till(KEY) as till:
        pass
    assert till._http.is_closed
    given = httpx.Client()
    with Till(KEY, http_client=given):
        pass
    assert not given.is_closed
    given.close()


def event(n: int) -> Dict[str, Any]:
    return {"id": f"evt_{n}", "type": "payment.succeeded", "createdAt": SESSION["createdAt"], "mode": "test", "data": {"sessionId": f"sess_{n}"}}


def paged(seen: Seen, _n: int) -> Reply:
    """Five events, newest (5) first, in pages of `limit`, as GET /api/v1/events answers."""
    query = dict(p.split("=") for p in seen.url.partition("?")[2].split("&") if p)
    newer = [5, 4, 3, 2, 1]
    start = newer.index(int(query["starting_after"][4:])) + 1 if "starting_after" in query else 0
    page = newer[start:start + int(query.get("limit", "10"))]
    return Reply(200, {"data": [event(n) for n in page], "hasMore": start + len(page) < len(newer)})


def test_iterate_follows_the_pages_with_starting_after() -> None:
    with fault_server(paged) as srv, Till(KEY, base_url=srv.base_url) as till:
        assert [e.id for e in till.events.iterate(limit=2)] == ["evt_5", "evt_4", "evt_3", "evt_2", "evt_1"]
        assert [e.id for e in till.events.iterate(limit=2, starting_after="evt_4")] == ["evt_3", "evt_2", "evt_1"]
        first = next(till.events.iterate(limit=2))
    assert first.id == "evt_5"
    assert [s.url for s in srv.seen] == [
        "/api/v1/events?limit=2",
        "/api/v1/events?limit=2&starting_after=evt_4",
        "/api/v1/events?limit=2&starting_after=evt_2",
        "/api/v1/events?limit=2&starting_after=evt_4",
        "/api/v1/events?limit=2&starting_after=evt_2",
        "/api/v1/events?limit=2",
    ], "pages are fetched only as the loop reaches them"


@pytest.mark.anyio
async def test_async_iterate_follows_the_pages_too() -> None:
    with fault_server(paged) as srv:
        async with AsyncTill(KEY, base_url=srv.base_url) as till:
            ids = [e.id async for e in till.events.iterate(limit=3, type="payment.succeeded")]
    assert ids == ["evt_5", "evt_4", "evt_3", "evt_2", "evt_1"]
    assert [s.url for s in srv.seen] == [
        "/api/v1/events?limit=3&type=payment.succeeded",
        "/api/v1/events?limit=3&starting_after=evt_3&type=payment.succeeded",
    ]


def test_list_filters_send_datetimes_as_utc_iso_and_metadata_as_deep_object_keys(run: Callable[..., Any]) -> None:
    from datetime import datetime, timedelta, timezone

    page = {"data": [], "hasMore": False}
    shanghai = timezone(timedelta(hours=8))
    with fault_server(lambda _s, _n: Reply(200, page)) as srv:
        run(srv.base_url, lambda t: t.sessions.list(
            status="paid", created_gte=datetime(2026, 11, 21, 17, 30, tzinfo=shanghai), created_lt="2026-11-22T00:00:00Z",
            metadata={"order": "A 1", "note": "谢"}, limit=10,
        ))
        error = raises(run, srv.base_url, lambda t: t.records.list(created_gte=datetime(2026, 11, 21)))
    assert isinstance(error, ValueError) and "aware datetime" in str(error)
    assert len(srv.seen) == 1, "a naive datetime is refused before any request"
    assert srv.seen[0].url == (
        "/api/v1/sessions?limit=10&status=paid&created_gte=2026-11-21T09%3A30%3A00.000Z&created_lt=2026-11-22T00%3A00%3A00Z"
        "&metadata%5Border%5D=A+1&metadata%5Bnote%5D=%E8%B0%A2"
    )
