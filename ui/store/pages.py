"""The rows of an SQLite file read page by page, in TableTally's own code, for a record SQLite cannot read.

Only what the salvage needs (:mod:`ui.store.salvage`): the table rows (rowid and values) of the file's table
b-trees, following overflow chains, with the committed frames of the write-ahead log laid over the file's
pages. Nothing is written. Every page and cell is read defensively: one that does not parse is skipped and
the rest are still read. The format is SQLite's documented file format (https://sqlite.org/fileformat.html).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAGIC = b"SQLite format 3\x00"
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
WAL_MAGIC = (0x377F0682, 0x377F0683)
TABLE_LEAF, TABLE_INTERIOR, INDEX_LEAF, INDEX_INTERIOR = 13, 5, 10, 2
MAX_CHAIN = 100_000  # overflow pages followed for one cell at most (a loop in a damaged chain ends here)

Row = tuple[int, tuple[Any, ...]]  # (rowid, the row's values)


class PageError(ValueError):
    """A page or a cell does not parse."""


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``at``: (value, the offset after it)."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def _signed(raw: bytes) -> int:
    return int.from_bytes(raw, "big", signed=True)


def decode_record(payload: bytes) -> tuple[Any, ...]:
    """The values of one record (its header of serial types, then the values); text is UTF-8."""
    header_size, at = _varint(payload, 0)
    if not 0 < header_size <= len(payload):
        raise PageError("record header out of its payload")
    types = []
    while at < header_size:
        serial, at = _varint(payload, at)
        types.append(serial)
    values: list[Any] = []
    body = header_size
    sizes = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8, 8: 0, 9: 0}
    for serial in types:
        if serial in (10, 11):
            raise PageError("reserved serial type")
        size = sizes[serial] if serial < 12 else (serial - 12) // 2
        raw = payload[body : body + size]
        if len(raw) != size:
            raise PageError("record value out of its payload")
        body += size
        if serial == 0:
            values.append(None)
        elif serial <= 6:
            values.append(_signed(raw))
        elif serial == 7:
            values.append(struct.unpack(">d", raw)[0])
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial % 2 == 0:
            values.append(bytes(raw))
        else:
            values.append(raw.decode("utf-8"))
    return tuple(values)


@dataclass
class PageFile:
    """An SQLite file's pages (numbered from 1), the write-ahead log's committed frames laid over them."""

    pages: dict[int, bytes]
    page_size: int
    reserved: int = 0
    header_ok: bool = True
    wal_frames: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def usable(self) -> int:
        return self.page_size - self.reserved

    @classmethod
    def read(cls, path: Path) -> PageFile:
        data = path.read_bytes()
        header_ok = data.startswith(MAGIC)
        page_size, reserved = 0, 0
        if header_ok:
            page_size = struct.unpack(">H", data[16:18])[0]
            page_size = 65536 if page_size == 1 else page_size
            reserved = data[20]
        problems = []
        wal_path = Path(f"{path}-wal")
        try:
            wal = wal_path.read_bytes() if wal_path.is_file() else b""
        except OSError as exc:
            wal = b""
            problems.append(f"the write-ahead log cannot be read: {exc}")
        if page_size not in PAGE_SIZES or reserved >= page_size // 2:
            header_ok, reserved = False, 0
            in_wal = struct.unpack(">I", wal[8:12])[0] if len(wal) >= 32 else 0
            page_size = in_wal if in_wal in PAGE_SIZES else _guess_page_size(data)
            problems.append(f"the file's header is damaged: pages read as {page_size} bytes")
        pages = {n + 1: data[n * page_size : (n + 1) * page_size] for n in range(len(data) // page_size)}
        found = cls(pages, page_size, reserved, header_ok, problems=problems)
        if wal:
            try:
                found.wal_frames = found.lay_wal(wal)
            except (PageError, struct.error) as exc:
                found.problems.append(f"the write-ahead log cannot be read: {exc}")
        return found

    def lay_wal(self, wal: bytes) -> int:
        """Lay the committed frames of a write-ahead log over the pages; returns how many were laid."""
        if len(wal) < 32:
            return 0
        magic, _version, page_size, _seq, salt1, salt2 = struct.unpack(">6I", wal[:24])
        if magic not in WAL_MAGIC or page_size != self.page_size:
            raise PageError("not a write-ahead log of this file")
        order = ">" if magic & 1 else "<"
        s0, s1 = _wal_checksum(wal[:24], 0, 0, order)
        if (s0, s1) != struct.unpack(">2I", wal[24:32]):
            raise PageError("the log's header checksum does not match")
        pending: dict[int, bytes] = {}
        laid = 0
        at = 32
        while at + 24 + page_size <= len(wal):
            number, commit, f1, f2, c0, c1 = struct.unpack(">6I", wal[at : at + 24])
            page = wal[at + 24 : at + 24 + page_size]
            if (f1, f2) != (salt1, salt2):
                break
            s0, s1 = _wal_checksum(wal[at : at + 8], s0, s1, order)
            s0, s1 = _wal_checksum(page, s0, s1, order)
            if (s0, s1) != (c0, c1):
                break
            pending[number] = page
            if commit:  # a committed transaction: its frames count
                self.pages.update(pending)
                laid += len(pending)
                pending = {}
            at += 24 + page_size
        return laid

    def page(self, number: int) -> bytes:
        page = self.pages.get(number)
        if page is None or len(page) != self.page_size:
            raise PageError(f"page {number} is not in the file")
        return page

    def kind(self, number: int) -> int:
        """The b-tree page type of page ``number`` (0 when it is none)."""
        try:
            page = self.page(number)
        except PageError:
            return 0
        kind = page[100 if number == 1 else 0]
        return kind if kind in (TABLE_LEAF, TABLE_INTERIOR, INDEX_LEAF, INDEX_INTERIOR) else 0

    # -- b-trees ------------------------------------------------------------------------------------------
    def tree_leaves(self, root: int, seen: set[int]) -> list[int]:
        """The table leaf pages under ``root`` (pages already in ``seen`` are not walked again); a damaged
        interior page is noted and skipped."""
        leaves, todo = [], [root]
        while todo:
            number = todo.pop()
            if number in seen or number not in self.pages:
                continue
            seen.add(number)
            kind = self.kind(number)
            if kind == TABLE_LEAF:
                leaves.append(number)
            elif kind == TABLE_INTERIOR:
                try:
                    todo.extend(reversed(self._children(number)))
                except (PageError, IndexError, struct.error):
                    self.problems.append(f"page {number} (inner page of a table) does not parse")
            else:
                self.problems.append(f"page {number} is not a table page where one should be")
        return leaves

    def _children(self, number: int) -> list[int]:
        page, at = self.page(number), 100 if number == 1 else 0
        count = struct.unpack(">H", page[at + 3 : at + 5])[0]
        right = struct.unpack(">I", page[at + 8 : at + 12])[0]
        children = []
        for i in range(count):
            cell = struct.unpack(">H", page[at + 12 + 2 * i : at + 14 + 2 * i])[0]
            children.append(struct.unpack(">I", page[cell : cell + 4])[0])
        return [*children, right]

    def leaf_rows(self, number: int) -> Iterator[Row]:
        """Every row of the table leaf page ``number`` that parses (with its overflow pages)."""
        try:
            page, at = self.page(number), 100 if number == 1 else 0
            count = struct.unpack(">H", page[at + 3 : at + 5])[0]
        except (PageError, struct.error):
            return
        usable = self.usable
        for i in range(count):
            try:
                cell = struct.unpack(">H", page[at + 8 + 2 * i : at + 10 + 2 * i])[0]
                size, pos = _varint(page, cell)
                rowid, pos = _varint(page, pos)
                payload = self._payload(page, pos, size, usable)
                yield rowid, decode_record(payload)
            except (PageError, IndexError, struct.error, UnicodeDecodeError, KeyError, ValueError):
                continue

    def _payload(self, page: bytes, at: int, size: int, usable: int) -> bytes:
        most = usable - 35
        if size <= most:
            payload = page[at : at + size]
            if len(payload) != size:
                raise PageError("cell out of its page")
            return payload
        least = (usable - 12) * 32 // 255 - 23
        local = least + (size - least) % (usable - 4)
        local = local if local <= most else least
        parts = [page[at : at + local]]
        got = local
        following = struct.unpack(">I", page[at + local : at + local + 4])[0]
        for _ in range(MAX_CHAIN):
            if got >= size:
                break
            if following == 0:
                raise PageError("overflow chain ends early")
            overflow = self.page(following)
            following = struct.unpack(">I", overflow[:4])[0]
            chunk = overflow[4 : 4 + min(usable - 4, size - got)]
            parts.append(chunk)
            got += len(chunk)
        if got != size:
            raise PageError("overflow chain does not hold the payload")
        return b"".join(parts)

    def freelist(self) -> set[int]:
        """The free pages the header's freelist names (their old contents are not rows of the record)."""
        free: set[int] = set()
        if not self.header_ok:
            return free
        try:
            trunk = struct.unpack(">I", self.page(1)[32:36])[0]
            while trunk and trunk not in free:
                free.add(trunk)
                page = self.page(trunk)
                following, count = struct.unpack(">2I", page[:8])
                count = min(count, (self.usable - 8) // 4)
                free.update(struct.unpack(f">{count}I", page[8 : 8 + 4 * count]))
                trunk = following
        except (PageError, struct.error):
            self.problems.append("the list of free pages does not parse")
        return free


def _wal_checksum(data: bytes, s0: int, s1: int, order: str) -> tuple[int, int]:
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def _looks_like_a_page(data: bytes, at: int, size: int) -> bool:
    """Whether ``size`` bytes at ``at`` start like a b-tree page: a page type, and a cell count and cell
    content area that fit in the page."""
    if at + 12 > len(data) or data[at] not in (TABLE_LEAF, TABLE_INTERIOR, INDEX_LEAF, INDEX_INTERIOR):
        return False
    header = 8 if data[at] in (TABLE_LEAF, INDEX_LEAF) else 12
    cells, content = struct.unpack(">HH", data[at + 3 : at + 7])
    content = content or 65536
    return header + 2 * cells <= content <= size and data[at + 7] <= 60


def _guess_page_size(data: bytes) -> int:
    """The page size at which the file's pages start like b-tree pages (the header that says is lost).

    Every multiple of the true size starts a page too, with fewer pages found; a smaller size than the
    true one finds its pages plus the odd chance match in the middle of one: the largest size that finds
    about as many as the best is the one."""
    found = {
        size: sum(_looks_like_a_page(data, at, size) for at in range(size, len(data), size))
        for size in PAGE_SIZES
    }
    best = max(found.values())
    if best == 0:
        return PAGE_SIZES[0]  # SQLite's default, TableTally's
    return max(size for size, count in found.items() if count >= 0.9 * best)


def table_rows(
    found: PageFile, shapes: Mapping[str, Callable[[tuple[Any, ...]], bool]]
) -> dict[str, dict[int, tuple[Any, ...]]]:
    """The rows of the tables named in ``shapes`` (each with the test a row of it passes), page by page.

    The schema (page 1) gives each table's root page; the leaf pages under it are read first. Then every
    table leaf page that no table's tree reaches and that is not free (its tree's inner page is damaged, or
    the schema is) is read, and a row goes to the first table whose shape it has. A rowid read from its own
    tree wins over one from a loose page (which may be an older copy)."""
    rows: dict[str, dict[int, tuple[Any, ...]]] = {name: {} for name in shapes}
    seen: set[int] = set()
    roots: dict[str, int] = {}
    for _rowid, values in (row for leaf in found.tree_leaves(1, seen) for row in found.leaf_rows(leaf)):
        if len(values) == 5 and values[0] == "table" and isinstance(values[3], int):
            roots[str(values[1])] = values[3]
    if not roots:
        found.problems.append("the schema page does not parse: tables found by the shape of their rows")
    for name, root in roots.items():
        leaves = found.tree_leaves(root, seen)
        if name in rows:
            for leaf in leaves:
                for rowid, values in found.leaf_rows(leaf):
                    if shapes[name](values):
                        rows[name][rowid] = values
    free = found.freelist()
    loose = [
        n for n in sorted(found.pages) if n not in seen and n not in free and found.kind(n) == TABLE_LEAF
    ]
    for number in loose:
        for rowid, values in found.leaf_rows(number):
            for name, fits in shapes.items():
                if fits(values):
                    rows[name].setdefault(rowid, values)
                    break
    return rows
