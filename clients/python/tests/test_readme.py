"""The README is what a merchant follows: its Python blocks compile, and every `till.…` method and
every attribute of a returned object it names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import till_payments as till

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_every_python_block_compiles() -> None:
    assert len(BLOCKS) >= 10
    for block in BLOCKS:
        ast.parse(block)


def test_every_client_method_the_readme_names_exists_on_both_clients() -> None:
    names = set(re.findall(r"\btill\.((?:[a-z_]+\.)*[a-z_]+)\(", README))
    assert {"create_checkout", "get_session", "refund", "webhook_endpoints.create", "events.iterate", "sessions.list"} <= names
    for client in (till.Till("sk_test_x"), till.AsyncTill("sk_test_x")):
        for name in names:
            target: object = client
            for part in name.split("."):
                assert hasattr(target, part), f"the README calls till.{name}"
                target = getattr(target, part)


def test_every_name_the_readme_imports_from_till_exists() -> None:
    for block in BLOCKS:
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and node.module == "till_payments":
                for alias in node.names:
                    assert hasattr(till, alias.name), f"from till_payments import {alias.name}"
