"""The base of every object the API returns: the wire JSON kept as received, read through typed
snake_case properties (generated in _generated.py), so `to_dict()` gives back exactly what Till sent.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from typing import Any, Dict, Mapping, Optional, TypeVar

_T = TypeVar("_T", bound="TillObject")


class TillObject:
    """An object from Till. Fields read as snake_case attributes (`session.expires_at`);
    `obj["expiresAt"]` reads the raw wire field, including one newer than this library."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"{type(self).__name__} expects a JSON object, got {type(data).__name__}")
        self._data: Dict[str, Any] = dict(data)

    @classmethod
    def from_dict(cls: type[_T], data: Mapping[str, Any]) -> _T:
        return cls(data)

    def to_dict(self) -> Dict[str, Any]:
        """The wire JSON, unchanged (camelCase keys, timestamps as the strings Till sent); a copy."""
        return copy.deepcopy(self._data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TillObject) and type(other) is type(self) and self._data == other._data

    def __hash__(self) -> int:
        return hash((type(self).__name__, json.dumps(self._data, sort_keys=True)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({json.dumps(self._data, ensure_ascii=False)})"

    def __getstate__(self) -> Dict[str, Any]:
        return self._data

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._data = state


def parse_datetime(value: str) -> datetime:
    """An ISO 8601 timestamp from Till (`2026-11-21T09:30:00.000Z`) as an aware datetime in UTC."""
    # Python 3.9 and 3.10's fromisoformat do not read the "Z" suffix.
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def parse_optional_datetime(value: Optional[str]) -> Optional[datetime]:
    return None if value is None else parse_datetime(value)
