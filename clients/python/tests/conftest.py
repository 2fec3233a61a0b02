from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, List, Optional, Union

import pytest

from till_payments import AsyncTill, Till

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass(frozen=True)
class TillServer:
    base_url: str
    test_key: str
    live_key: str
    admin_token: str


@pytest.fixture(scope="session")
def till_server() -> Iterator[TillServer]:
    """A real Till on a fresh database (scripts/serve-for-clients.ts), one per pytest session; it
    stops when its stdin closes."""
    if not os.environ.get("TEST_DATABASE_URL"):
        pytest.fail("integration tests need TEST_DATABASE_URL: run bash scripts/python-client.sh (or npm test), "
                    "or deselect them with -m 'not integration'")
    proc = subprocess.Popen(
        ["npx", "tsx", "scripts/serve-for-clients.ts"], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    lines: List[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(timeout=90)
    if not lines or not lines[0].strip():
        proc.kill()
        pytest.fail("scripts/serve-for-clients.ts printed no address within 90 s (its stderr is above)")
    info = json.loads(lines[0])
    try:
        yield TillServer(info["baseUrl"], info["testKey"], info["liveKey"], info["adminToken"])
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


class Driver:
    """One client, Till or AsyncTill, driven alike: `do(lambda t: t.get_session(sid))` returns the
    answer (the async client's coroutine is run to completion on the driver's own event loop)."""

    def __init__(self, kind: str, api_key: str, base_url: str, **config: Any) -> None:
        self.kind = kind
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self.client: Union[Till, AsyncTill]
        if kind == "sync":
            self.client = Till(api_key, base_url=base_url, **config)
        else:
            self.loop = asyncio.new_event_loop()
            self.client = AsyncTill(api_key, base_url=base_url, **config)

    def __call__(self, call: Callable[[Any], Any]) -> Any:
        result = call(self.client)
        return self.loop.run_until_complete(result) if self.loop is not None else result

    def items(self, call: Callable[[Any], Any]) -> List[Any]:
        """Everything an iterate method yields, as a list."""
        iterator = call(self.client)
        if self.loop is None:
            return list(iterator)

        async def collect() -> List[Any]:
            return [item async for item in iterator]

        return self.loop.run_until_complete(collect())

    def close(self) -> None:
        if isinstance(self.client, Till):
            self.client.close()
        else:
            assert self.loop is not None
            self.loop.run_until_complete(self.client.close())
            self.loop.close()


MakeDriver = Callable[..., Driver]


@pytest.fixture(params=["sync", "async"])
def make_driver(request: pytest.FixtureRequest, till_server: TillServer) -> Iterable[MakeDriver]:
    """make_driver(api_key=test key, base_url=the Till, **config): a Driver of this test's kind."""
    made: List[Driver] = []

    def make(api_key: Optional[str] = None, base_url: Optional[str] = None, **config: Any) -> Driver:
        driver = Driver(request.param, api_key or till_server.test_key, base_url or till_server.base_url, **{"retry_base_ms": 5, **config})
        made.append(driver)
        return driver

    yield make
    for driver in made:
        driver.close()
