"""One request sender per client, as in @till-payments/node: an Idempotency-Key on every POST (the caller's,
or a fresh UUID), kept across retries, so a retry can never run twice. Retried: no answer (network
error, timeout), 409 (the same key still in flight), 429 and 5xx. The decisions are plain
functions; SyncSender and AsyncSender differ only in how they wait and send.
"""

from __future__ import annotations

import asyncio
import errno
import json
import platform
import random
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote, urlencode

import httpx

from ._errors import APIConnectionError, TillError, error_from_response, parse_retry_after

VERSION = "0.1.0"

QueryValue = Union[str, int, bool, datetime, Mapping[str, str], None]
Query = Mapping[str, QueryValue]


@dataclass(frozen=True)
class SenderConfig:
    api_key: str
    base_url: str
    timeout_ms: int
    max_retries: int
    retry_base_ms: int
    """First backoff wait; doubles per retry up to retry_max_ms, with jitter down to half."""
    retry_max_ms: int
    max_retry_after_ms: int
    """A Retry-After longer than this is not waited for: the error is raised instead."""


@dataclass(frozen=True)
class _Prepared:
    method: str
    path: str
    url: str
    headers: Dict[str, str]
    content: Optional[bytes]
    timeout_ms: int
    max_retries: int


def check_config(api_key: str, base_url: str) -> str:
    """The base URL without trailing slashes; TypeError/ValueError for what cannot work."""
    if not isinstance(api_key, str) or api_key == "":  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError("Till(api_key): api_key is required (sk_test_... or sk_live_...)")
    url = httpx.URL(base_url.rstrip("/")) if isinstance(base_url, str) else None  # pyright: ignore[reportUnnecessaryIsInstance]
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"base_url must be an http(s) address, got {base_url!r}")
    return base_url.rstrip("/")


def path_with(template: str, *ids: str) -> str:
    """Fills each `{...}` of the template with an id, URL-encoded; refuses a missing one."""
    out = template
    for value in ids:
        # None or "" would become ".../None" or a different endpoint, and a confusing 404.
        if not isinstance(value, str) or value == "":  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"{template}: the id must be a non-empty string, got {value!r}")
        start = out.index("{")
        out = out[:start] + quote(value, safe="") + out[out.index("}", start) + 1 :]
    return out


def _user_agent() -> str:
    return f"till-python/{VERSION} python/{platform.python_version()} httpx/{httpx.__version__}"


def prepare(
    cfg: SenderConfig,
    method: str,
    path: str,
    *,
    body: Optional[Mapping[str, Any]],
    query: Optional[Query],
    idempotency_key: Optional[str],
    timeout_ms: Optional[int],
    max_retries: Optional[int],
) -> _Prepared:
    headers = {
        "authorization": f"Bearer {cfg.api_key}",
        "accept": "application/json",
        "user-agent": _user_agent(),
    }
    content: Optional[bytes] = None
    if method == "POST":
        # Chosen once per call, so every retry carries the same key.
        headers["idempotency-key"] = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
    if method in ("POST", "PATCH"):
        headers["content-type"] = "application/json"
        # Compact and UTF-8, as JSON.stringify sends it.
        content = json.dumps(dict(body or {}), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return _Prepared(
        method=method,
        path=path,
        url=cfg.base_url + path + _query_string(query),
        headers=headers,
        content=content,
        timeout_ms=cfg.timeout_ms if timeout_ms is None else timeout_ms,
        max_retries=cfg.max_retries if max_retries is None else max_retries,
    )


def _query_string(query: Optional[Query]) -> str:
    """Parameters left as None are not sent; a dict is sent as `name[key]=value` (metadata filters)."""
    if not query:
        return ""
    pairs: List[Tuple[str, str]] = []
    for name, value in query.items():
        if isinstance(value, Mapping):
            pairs += [(f"{name}[{k}]", v) for k, v in value.items()]
        elif value is not None:
            pairs.append((name, _query_value(name, value)))
    return "?" + urlencode(pairs) if pairs else ""


def _query_value(name: str, value: Union[str, int, bool, datetime]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            # A naive datetime would be read as UTC by the service and as local time by Python: refuse the guess.
            raise ValueError(f"{name}: give an aware datetime (e.g. datetime.now(timezone.utc)), got {value!r}")
        return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value)


def backoff_seconds(cfg: SenderConfig, attempt: int) -> float:
    """Exponential backoff with jitter: spreads the retries of many clients that failed together."""
    ceiling = min(cfg.retry_max_ms, cfg.retry_base_ms * (1 << attempt))
    return round(ceiling * (0.5 + random.random() / 2)) / 1000


def _parse_body(text: str) -> Any:
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _outcome(cfg: SenderConfig, req: _Prepared, res: httpx.Response, attempt: int) -> Tuple[Any, Optional[float]]:
    """(the parsed 2xx body, None) to return; (a TillError, seconds) to retry after; (a TillError, None) to raise."""
    body = _parse_body(res.text)
    if res.is_success:
        return body, None
    error = error_from_response(res.status_code, body, res.headers)
    retry_after = parse_retry_after(res.headers.get("retry-after"))
    acceptable_wait = retry_after is None or retry_after * 1000 <= cfg.max_retry_after_ms
    retryable = res.status_code in (409, 429) or res.status_code >= 500
    if attempt < req.max_retries and retryable and acceptable_wait:
        return error, retry_after if retry_after is not None else backoff_seconds(cfg, attempt)
    return error, None


def _connection_error(req: _Prepared, exc: httpx.TransportError, attempts: int) -> APIConnectionError:
    timed_out = isinstance(exc, httpx.TimeoutException)
    what = f"timed out after {req.timeout_ms} ms" if timed_out else f"failed: {_describe(exc)}"
    plural = "s" if attempts > 1 else ""
    error = APIConnectionError(f"{req.method} {req.path} {what} ({attempts} attempt{plural})", timed_out=timed_out)
    error.__cause__ = exc
    return error


def _describe(exc: BaseException) -> str:
    """ECONNREFUSED and the like when an OS error lies under httpx's exception; its text otherwise."""
    seen: Optional[BaseException] = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno is not None and seen.errno in errno.errorcode:
            return errno.errorcode[seen.errno]
        seen = seen.__cause__ or seen.__context__
    return str(exc) or type(exc).__name__


def _timeout(req: _Prepared) -> httpx.Timeout:
    # Connecting, and each wait for the answer's bytes, are bounded by the per-attempt timeout.
    return httpx.Timeout(req.timeout_ms / 1000)


class SyncSender:
    def __init__(self, cfg: SenderConfig, client: httpx.Client, sleep: Callable[[float], None] = time.sleep) -> None:
        self.cfg = cfg
        self._client = client
        self._sleep = sleep

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Query] = None,
        idempotency_key: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        max_retries: Optional[int] = None,
    ) -> Any:
        req = prepare(self.cfg, method, path, body=body, query=query, idempotency_key=idempotency_key, timeout_ms=timeout_ms, max_retries=max_retries)
        attempt = 0
        while True:
            try:
                res = self._client.request(req.method, req.url, headers=req.headers, content=req.content, timeout=_timeout(req))
            except httpx.TransportError as exc:
                if attempt < req.max_retries:
                    self._sleep(backoff_seconds(self.cfg, attempt))
                    attempt += 1
                    continue
                raise _connection_error(req, exc, attempt + 1) from exc
            result, wait = _outcome(self.cfg, req, res, attempt)
            if not isinstance(result, TillError):
                return result
            if wait is None:
                raise result
            self._sleep(wait)
            attempt += 1


class AsyncSender:
    def __init__(self, cfg: SenderConfig, client: httpx.AsyncClient, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.cfg = cfg
        self._client = client
        self._sleep = sleep

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Query] = None,
        idempotency_key: Optional[str] = None,
        timeout_ms: Optional[int] = None,
        max_retries: Optional[int] = None,
    ) -> Any:
        req = prepare(self.cfg, method, path, body=body, query=query, idempotency_key=idempotency_key, timeout_ms=timeout_ms, max_retries=max_retries)
        attempt = 0
        while True:
            try:
                res = await self._client.request(req.method, req.url, headers=req.headers, content=req.content, timeout=_timeout(req))
            except httpx.TransportError as exc:
                if attempt < req.max_retries:
                    await self._sleep(backoff_seconds(self.cfg, attempt))
                    attempt += 1
                    continue
                raise _connection_error(req, exc, attempt + 1) from exc
            result, wait = _outcome(self.cfg, req, res, attempt)
            if not isinstance(result, TillError):
                return result
            if wait is None:
                raise result
            await self._sleep(wait)
            attempt += 1
