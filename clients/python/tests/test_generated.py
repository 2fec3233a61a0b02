"""src/till_payments/_generated.py is generated from clients/openapi.json (which `npm run clients:gen` makes
from the service). When either changes, this fails until scripts/gen_models.py has been run and
its output committed."""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
from pathlib import Path
from types import ModuleType

import till_payments as till

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_models", SCRIPTS / "gen_models.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_models"] = module
    spec.loader.exec_module(module)
    return module


def test_the_generated_module_matches_clients_openapi_json() -> None:
    gen = generator()
    fresh = gen.generate()
    assert "class Session(TillObject)" in fresh, "the generation itself works"
    assert gen.OUTPUT.read_text("utf-8") == fresh, (
        "src/till_payments/_generated.py is not what clients/openapi.json generates now: "
        "run `python scripts/gen_models.py` in clients/python and commit the result"
    )


def test_every_operation_of_the_document_has_a_method_on_both_clients() -> None:
    gen = generator()
    document = json.loads(gen.OPENAPI.read_text("utf-8"))
    covered = {(op.verb, op.path) for op in gen.OPERATIONS}
    for path, operations in document["paths"].items():
        for verb in operations:
            assert (verb.upper(), path) in covered, f"{verb.upper()} {path} has no method"
    sync_client, async_client = till.Till("sk_test_x"), till.AsyncTill("sk_test_x")
    for op in gen.OPERATIONS:
        owner_sync, owner_async = sync_client, async_client
        for part in filter(None, op.owner.split(".")):
            owner_sync, owner_async = getattr(owner_sync, part), getattr(owner_async, part)
        method, coroutine = getattr(owner_sync, op.name), getattr(owner_async, op.name)
        assert not inspect.iscoroutinefunction(method) and inspect.iscoroutinefunction(coroutine)
        assert inspect.signature(method) == inspect.signature(coroutine)
    sync_client.close()
