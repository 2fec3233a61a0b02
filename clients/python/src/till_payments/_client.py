"""The clients: Till (blocking) and AsyncTill (asyncio), each one httpx connection pool under the
generated methods of _generated.py. Use them as (async) context managers, or call close()."""

from __future__ import annotations

from types import TracebackType
from typing import Optional, Type

import httpx

from ._generated import AsyncTillBase, TillBase
from ._request import AsyncSender, SenderConfig, SyncSender, check_config
from ._webhooks import construct_event, verify_webhook_signature

DEFAULT_BASE_URL = "http://localhost:8080"


def _config(
    api_key: str,
    base_url: str,
    timeout_ms: int,
    max_retries: int,
    retry_base_ms: int,
    retry_max_ms: int,
    max_retry_after_ms: int,
) -> SenderConfig:
    return SenderConfig(
        api_key=api_key,
        base_url=check_config(api_key, base_url),
        timeout_ms=timeout_ms,
        max_retries=max_retries,
        retry_base_ms=retry_base_ms,
        retry_max_ms=retry_max_ms,
        max_retry_after_ms=max_retry_after_ms,
    )


class Till(TillBase):
    """The Till client. `api_key` is a secret key, sk_test_... or sk_live_...: the mode follows from it.
    Server-side only.

    - base_url: where your Till is served, without /api/v1 (default http://localhost:8080).
    - timeout_ms: per attempt, for connecting and for each wait on the answer (default 30000).
    - max_retries: retries after the first attempt, for network errors, timeouts, 409, 429 and 5xx (default 2).
    - retry_base_ms, retry_max_ms: the first backoff wait, doubled per retry with jitter, and its cap (500, 8000).
    - max_retry_after_ms: a Retry-After longer than this is not waited for; the error is raised (default 60000).
    - http_client: an httpx.Client of your own (proxies, certificates); the client then leaves closing it to you.
    """

    verify_webhook_signature = staticmethod(verify_webhook_signature)
    construct_event = staticmethod(construct_event)

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout_ms: int = 30_000,
        max_retries: int = 2,
        retry_base_ms: int = 500,
        retry_max_ms: int = 8_000,
        max_retry_after_ms: int = 60_000,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        cfg = _config(api_key, base_url, timeout_ms, max_retries, retry_base_ms, retry_max_ms, max_retry_after_ms)
        self._owns_client = http_client is None
        self._http = http_client if http_client is not None else httpx.Client()
        super().__init__(SyncSender(cfg, self._http))

    @property
    def base_url(self) -> str:
        return self._sender.cfg.base_url

    def close(self) -> None:
        """Closes the connections (unless the httpx client was given)."""
        if self._owns_client:
            self._http.close()

    def __enter__(self) -> Till:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        # Never the key.
        return f"Till(base_url={self.base_url!r})"


class AsyncTill(AsyncTillBase):
    """The Till client for asyncio: the same methods as Till, as coroutines (`iterate` methods are
    async iterators). The same arguments, with http_client an httpx.AsyncClient."""

    verify_webhook_signature = staticmethod(verify_webhook_signature)
    construct_event = staticmethod(construct_event)

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout_ms: int = 30_000,
        max_retries: int = 2,
        retry_base_ms: int = 500,
        retry_max_ms: int = 8_000,
        max_retry_after_ms: int = 60_000,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        cfg = _config(api_key, base_url, timeout_ms, max_retries, retry_base_ms, retry_max_ms, max_retry_after_ms)
        self._owns_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        super().__init__(AsyncSender(cfg, self._http))

    @property
    def base_url(self) -> str:
        return self._sender.cfg.base_url

    async def close(self) -> None:
        """Closes the connections (unless the httpx client was given)."""
        if self._owns_client:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncTill:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncTill(base_url={self.base_url!r})"
