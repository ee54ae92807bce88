"""An immutable, hashable mapping for the frozen value types of the rules core."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(Mapping[K, V]):
    """A read-only dict that keeps insertion order, compares like a dict and can be hashed.

    Equality ignores order (as for ``dict``) and the hash is consistent with it, so two
    results that hold the same totals are equal and hash alike whatever order they were built in.
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] = dict(items)
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


def freeze(mapping: Mapping[K, V]) -> FrozenDict[K, V]:
    """``mapping`` as a FrozenDict (itself when it already is one)."""
    return mapping if isinstance(mapping, FrozenDict) else FrozenDict(mapping)
