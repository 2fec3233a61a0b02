"""What the generated methods and models share: request bodies without the arguments left out,
copies of mutable wire values, and iteration over list answers, page after page."""

from __future__ import annotations

import copy
import re
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Iterator, List, Mapping, Optional, Protocol, Sequence, Tuple, Type, TypeVar

from ._model import TillObject

_M = TypeVar("_M", bound=TillObject)
_T = TypeVar("_T")
_Item = TypeVar("_Item", bound="_HasId", covariant=True)


class NotGiven:
    """The default of an argument for which None means something (`events=None`: every type)."""

    _instance: Optional["NotGiven"] = None

    def __new__(cls) -> "NotGiven":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


def body_of(fields: Mapping[str, Any], extra: Optional[Mapping[str, Any]], nullable: Tuple[str, ...] = ()) -> Dict[str, Any]:
    """The JSON body: None is "not given" except for the nullable fields, where NOT_GIVEN is. An
    extra field may name an argument's body field (merchants are told to send `providerHints` as
    an extra field): it is sent when the argument is not given, and refused when the two differ."""
    body = {k: v for k, v in fields.items() if not isinstance(v, NotGiven) and (v is not None or k in nullable)}
    for name, value in (extra or {}).items():
        if name in body and body[name] != value:
            raise TypeError(f"the argument {_snake(name)} and the extra field {name} differ: give one of them")
        body[name] = value
    return body


def _snake(wire_name: str) -> str:
    """The argument's name for a body field: successUrl is success_url."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", wire_name).lower()


def copied(value: _T) -> _T:
    """A copy of a list or dict from the wire JSON, so changing it cannot change the object."""
    return copy.deepcopy(value)


def optional_model(cls: Type[_M], value: Any) -> Optional[_M]:
    return None if value is None else cls(value)


def model_list(cls: Type[_M], values: Sequence[Any]) -> List[_M]:
    return [cls(v) for v in values]


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


class ListAnswer(Protocol[_Item]):
    """A list answer: `data`, and on a paged list `has_more`."""

    @property
    def data(self) -> Sequence[_Item]: ...


def _next_cursor(page: ListAnswer[_HasId]) -> Optional[str]:
    # A list without has_more is complete in one answer.
    if not getattr(page, "has_more", False) or not page.data:
        return None
    return page.data[-1].id


def iterate_pages(fetch: Callable[[Optional[str]], ListAnswer[_Item]], cursor: Optional[str]) -> Iterator[_Item]:
    """Yields every item, asking for the page after the last item seen while the list has more."""
    while True:
        page = fetch(cursor)
        yield from page.data
        cursor = _next_cursor(page)
        if cursor is None:
            return


async def aiterate_pages(fetch: Callable[[Optional[str]], Awaitable[ListAnswer[_Item]]], cursor: Optional[str]) -> AsyncIterator[_Item]:
    """iterate_pages for the async client: `async for item in ...`."""
    while True:
        page = await fetch(cursor)
        for item in page.data:
            yield item
        cursor = _next_cursor(page)
        if cursor is None:
            return
