"""A virtualised list: the line API (``ScrollView.render_line``) with one cached
``Strip`` per row (~0.6 ms to update a row at any size, measured, where a
DataTable re-renders every visible cell and a widget per row re-lays out them all).

A subclass turns its items into :class:`Row` objects (sanitised cells, each with a
component class for its style) and calls :meth:`LineList.set_rows`. Rows are matched
by key, so the cursor stays on the same item when the list changes, and a row is
rendered again only when its content changed or the width did.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, ClassVar, TypeVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from teamdeck.tui.render import cell as sanitised_cell
from teamdeck.view.snapshot.workspace import same_items


@dataclass(frozen=True)
class Cell:
    """One column of a row: sanitised text, a width (None: the rest of the line) and
    a component class naming its style (``""``: the list's own).

    A width is the most the column takes: each column is as wide as its widest cell
    in the list (or its title, :attr:`LineList.titles`), so short content leaves the
    room to the columns after it (:data:`FIT_ROWS`)."""

    text: str
    width: int | None = None
    style: str = ""
    middle: bool = False
    """Cut a text too long for its column in the middle (``release.0…release-notes``),
    keeping the end: for ids that share a long prefix and differ at the end."""


Shape = tuple[int | None, ...]
"""The widths a row's cells ask for: rows of one shape are columns of one table."""


@dataclass(frozen=True)
class Row:
    """One line of a list: a stable key (to keep the cursor on it) and its cells."""

    key: str
    cells: tuple[Cell, ...]

    @cached_property
    def shape(self) -> Shape:
        """The widths its cells ask for."""
        return tuple(cell.width for cell in self.cells)

    @cached_property
    def text_widths(self) -> tuple[int, ...]:
        """How wide each fixed cell's text is (0 for the rest of the line): worked out
        once per row, as the list fits its columns again on every change and most
        rows are the very objects it had (:class:`RowMemo`)."""
        return tuple(0 if cell.width is None else cell_len(cell.text.rstrip()) for cell in self.cells)


Item = TypeVar("Item")
FIT_ROWS = 2_000
"""Lists longer than this keep their columns at their full widths (measuring every
cell on each change would cost more than the room is worth)."""


class RowMemo:
    """The rows made for the items of the last update, by item identity.

    Snapshots reuse the objects of everything that did not change, so an update makes
    new rows only for what changed: no work, and no garbage that the collector would
    have to walk later (large collections stall the UI).
    """

    def __init__(self) -> None:
        self._rows: dict[int, tuple[Any, Hashable, Row]] = {}

    def rows(
        self, items: Iterable[Item], make: Callable[[Item], Row], stamp: Callable[[Item], Hashable] | None = None
    ) -> list[Row]:
        """A row per item: the one made last time when the item is the same object
        (and its ``stamp``, such as an age shown on the row, is unchanged)."""
        rows, kept = [], {}
        for item in items:
            mark = stamp(item) if stamp is not None else None
            found = self._rows.get(id(item))
            if found is not None and found[0] is item and found[1] == mark:
                row = found[2]
            else:
                row = make(item)
            kept[id(item)] = (item, mark, row)
            rows.append(row)
        self._rows = kept
        return rows


class LineList(ScrollView, can_focus=True):
    """A focusable, scrollable list of :class:`Row` drawn line by line."""

    COMPONENT_CLASSES = {
        "line-list--cursor",
        "line-list--cursor-blurred",
        "line-list--dim",
        "line-list--accent",
        "line-list--warning",
        "line-list--error",
        "line-list--success",
        "line-list--bold",
        "line-list--empty",
    }

    BINDINGS = [
        # Arrows, and j/k as in vi, less and most TUIs (no panel action uses them).
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)

    KEEP_PLACE: ClassVar[bool] = False
    """When the selected row's item goes (answered, decided elsewhere; not a row the
    filter hides), select nothing, the cursor keeping its place, until the person moves
    it (:attr:`vacant`); otherwise the cursor lands on the row that took its place."""

    REST_MIN: ClassVar[int] = 0
    """The fewest cells the last column (the rest of the line) keeps on a narrow
    terminal: the fixed columns before it narrow to leave it that much (0: they keep
    their widths and a narrow terminal cuts the columns on the right)."""

    class Highlighted(Message):
        """The cursor moved to another row."""

        def __init__(self, line_list: LineList, key: str | None) -> None:
            super().__init__()
            self.line_list = line_list
            self.key = key

        @property
        def control(self) -> LineList:
            return self.line_list

    class Chosen(Message):
        """A row was chosen (Enter or a double click)."""

        def __init__(self, line_list: LineList, key: str) -> None:
            super().__init__()
            self.line_list = line_list
            self.key = key

        @property
        def control(self) -> LineList:
            return self.line_list

    def __init__(self, *, empty: str = "nothing to show", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: tuple[Row, ...] = ()
        self.empty = empty
        self._index: dict[str, int] = {}
        self._cache: dict[str, tuple[Row, int, bool, Strip]] = {}
        self._last_key: str | None = None
        self._base: Style | None = None
        self.memo = RowMemo()
        self.titles: tuple[str, ...] = ()
        """The columns' titles, when a header line names them (a column is never
        narrower than its title)."""
        self.all_rows: tuple[Row, ...] = ()
        """Every row given, before :attr:`filter_text` leaves some out."""
        self.filter_text = ""
        """Only rows with a cell containing it are shown (any case; ``""``: all)."""
        self.widths: dict[Shape, Shape] = {}
        """The columns' widths now, by shape of row (fitted to the rows; see :class:`Cell`)."""
        self._gap: int | None = None
        """Where the selected row was, while nothing is selected since it went (see
        :attr:`KEEP_PLACE`); None: the row under the cursor is selected."""

    # --- content ------------------------------------------------------------------

    def set_rows(self, rows: Sequence[Row], *, follow: bool = False) -> None:
        """Show ``rows``; the cursor stays on the row with the same key if there is one.

        Args:
            rows: the new rows, in order.
            follow: a growing log: when the cursor was on the last row, it moves to the
                new last row and the view follows it (like ``tail -f``); elsewhere, the
                cursor and the view stay where the person put them.
        """
        self.all_rows = tuple(rows)
        rows = self._filtered(self.all_rows)
        if same_items(rows, self.rows):
            return  # nothing changed: no refresh at all
        # Following is decided by the cursor, not the scroll position (which lags the
        # layout once the rows outgrow the view): on the last row, it stays on the last.
        at_end = self.cursor >= len(self.rows) - 1
        self.rows = rows
        widths = fitted_widths(rows, self.titles)
        if widths != self.widths:
            self.widths = widths
            self._cache.clear()
        self._index = {row.key: index for index, row in enumerate(self.rows)}
        keys = self._index.keys()
        for key in [key for key in self._cache if key not in keys]:
            del self._cache[key]
        self.virtual_size = Size(self.size.width, len(self.rows))
        if self._last_key is not None and self._last_key in self._index:
            self.cursor = self._index[self._last_key]
        elif self.KEEP_PLACE and self._last_key is not None and all(row.key != self._last_key for row in self.all_rows):
            self._gap = self.cursor  # its place, in the rows before (the cursor is not moved yet)
            self.cursor = min(self.cursor, max(0, len(self.rows) - 1))
        else:
            self.cursor = min(self.cursor, max(0, len(self.rows) - 1))
        if follow and at_end:
            self.cursor = max(0, len(self.rows) - 1)
            # Once the new virtual size is laid out, show the last row (now, the view may
            # not yet know it can scroll that far).
            self.call_after_refresh(self.scroll_to_region_row, self.cursor)
        self.refresh()

    def set_filter(self, text: str) -> None:
        """Show only the rows with a cell containing ``text`` (any case; ``""``: all)."""
        self.filter_text = text.strip().lower()
        self.set_rows(self.all_rows)
        if not self.rows:
            self.refresh()  # no rows before or after: the line saying why names the new filter

    @property
    def empty_text(self) -> str:
        """What the list says when it shows no row: :attr:`empty`, or, when the filter
        hides every row, that nothing matches it (the rows are there, only hidden: the
        list must not read as empty, or as still being read)."""
        if self.filter_text and self.all_rows:
            return self.filtered_out(len(self.all_rows))
        return self.empty

    def filtered_out(self, total: int) -> str:
        """The line of a list whose ``total`` rows the filter all hides (a subclass names
        what its rows are)."""
        return f"nothing matches “{sanitised_cell(self.filter_text, 60)}” — {total} in all (esc clears the filter)"

    def _filtered(self, rows: tuple[Row, ...]) -> tuple[Row, ...]:
        if not self.filter_text:
            return rows
        wanted = self.filter_text
        return tuple(row for row in rows if any(wanted in cell.text.lower() for cell in row.cells))

    @property
    def current_key(self) -> str | None:
        """The key of the row under the cursor (None when empty or :attr:`vacant`)."""
        if self._gap is None and 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor].key
        return None

    @property
    def vacant(self) -> bool:
        """Nothing is selected since the selected row went (:attr:`KEEP_PLACE`)."""
        return self._gap is not None

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row with ``key``; False if there is none."""
        index = self._index.get(key)
        if index is None:
            return False
        self._move(index)
        return True

    def _move(self, index: int) -> None:
        """Select the row at ``index`` (clamped): the person chose a row."""
        self._gap = None
        self.cursor = index  # (always set: selects the row even when the index is the same)

    # --- cursor ---------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_line(old)
        self.refresh_line(new)
        self.scroll_to_region_row(new)
        key = self.current_key
        if key != self._last_key:
            self._last_key = key
            self.post_message(self.Highlighted(self, key))

    def scroll_to_region_row(self, index: int) -> None:
        """Scroll so row ``index`` is visible."""
        top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif height and index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    def action_cursor_up(self) -> None:
        """The row above; after the selected row went, the one above its place."""
        self._move((self.cursor if self._gap is None else self._gap) - 1)

    def action_cursor_down(self) -> None:
        """The row below; after the selected row went, the one that took its place."""
        self._move(self.cursor + 1 if self._gap is None else self._gap)

    def action_page_up(self) -> None:
        self._move(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._move(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self.rows) - 1)

    def choose(self) -> None:
        """Post :class:`Chosen` for the row under the cursor."""
        key = self.current_key
        if key is not None:
            self.post_message(self.Chosen(self, key))

    def on_click(self, event: events.Click) -> None:
        index = event.y + int(self.scroll_offset.y)
        if 0 <= index < len(self.rows):
            self._move(index)
            if event.chain >= 2:
                self.choose()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._base = None

    @property
    def base_style(self) -> Style:
        """The list's own style (``rich_style``), kept until the styles change: working
        it out walks every ancestor and was ~60 % of drawing a row that is cached."""
        if self._base is None:
            self._base = self.rich_style
        return self._base

    def on_focus(self) -> None:
        self.refresh_line(self.cursor)

    def on_blur(self) -> None:
        self.refresh_line(self.cursor)

    # --- drawing ----------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        index = y + int(self.scroll_offset.y)
        base = self.base_style
        if not self.rows:
            if y == 0:
                return Strip(
                    [Segment(set_cell_size(f" {self.empty_text}", width), base + self._style("line-list--empty"))],
                    width,
                )
            return Strip.blank(width, base)
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        is_cursor = index == self.cursor and self._gap is None
        cached = self._cache.get(row.key)
        if (
            cached is not None
            and cached[1] == width
            and cached[2] == (is_cursor and self.has_focus)
            and (cached[0] is row or cached[0] == row)
        ):
            return cached[3]
        strip = self._render_row(row, width, is_cursor, base)
        self._cache[row.key] = (row, width, is_cursor and self.has_focus, strip)
        return strip

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True) if name else Style()

    def _render_row(self, row: Row, width: int, is_cursor: bool, base: Style) -> Strip:
        line_style = base
        if is_cursor:
            line_style = base + self._style("line-list--cursor" if self.has_focus else "line-list--cursor-blurred")
        segments: list[Segment] = [Segment(" ", line_style)]
        used = 1
        widths = self.widths.get(row.shape) if self.widths else None
        if widths is not None and self.REST_MIN:
            widths = squeezed(widths, width, self.REST_MIN)
        for index, cell in enumerate(row.cells):
            if used >= width:
                break
            room = width - used
            column = widths[index] if widths is not None else cell.width
            if column == 0:
                continue  # a column with nothing in it on any row: no room, no separator
            text = cell.text if column is None else _fit(cell.text, column, middle=cell.middle)
            if cell_len(text) > room:
                if cell_len(cell.text.rstrip()) <= room:
                    text = set_cell_size(text, room)  # only padding is cut: no "…" for it
                else:
                    text = _fit(cell.text.rstrip(), room, middle=cell.middle)
            style = line_style + self._style(cell.style) if cell.style else line_style
            if is_cursor and self.has_focus:
                style = style + self._style("line-list--cursor")
            segments.append(Segment(text, style))
            used += cell_len(text)
            if cell.width is not None and used < width:
                segments.append(Segment(" ", line_style))
                used += 1
        if used < width:
            segments.append(Segment(" " * (width - used), line_style))
        return Strip(segments, width)


def header_text(titles: Sequence[tuple[str, int | None]]) -> str:
    """Column titles (``(title, width)``, widths as in :class:`Cell`) laid out exactly as
    :class:`LineList` lays out a row with those widths, for a header line above it
    (a column of width 0 is left out, as in the rows)."""
    return " " + " ".join(title if width is None else _fit(title, width) for title, width in titles if width != 0)


def fitted_widths(rows: Sequence[Row], titles: Sequence[str] = ()) -> dict[Shape, Shape]:
    """The columns' widths for each shape of row in ``rows``: each fixed column as wide
    as its widest cell (at least its title), at most the width its cells ask. Empty
    when the rows are too many to measure (:data:`FIT_ROWS`): every cell then keeps
    the width it asks."""
    if len(rows) > FIT_ROWS:
        return {}
    by_shape: dict[Shape, list[tuple[int, ...]]] = {}
    for row in rows:
        by_shape.setdefault(row.shape, []).append(row.text_widths)
    widest = {key: [max(column) for column in zip(*measured, strict=True)] for key, measured in by_shape.items()}
    return {
        key: tuple(
            None
            if asked is None
            else _column(asked, found[index], cell_len(titles[index]) if index < len(titles) else 0)
            for index, asked in enumerate(key)
        )
        for key, found in widest.items()
    }


def _column(asked: int, widest: int, title: int) -> int:
    """A fixed column's width: its widest text and one space more (two between columns:
    they read apart), at most what its cells ask; 0 when it is empty on every row."""
    needed = max(widest, title)
    return min(asked, needed + 1) if needed else 0


@lru_cache(maxsize=256)
def squeezed(widths: Shape, width: int, rest: int) -> Shape:
    """``widths`` narrowed so that a line ``width`` cells wide leaves ``rest`` cells (or a
    third of the line) to the last column: the fixed columns give up room from the
    right (the least important first, as the columns are ordered), each down to
    :data:`SQUEEZE_FLOOR` at most."""
    if None not in widths:
        return widths
    rest = min(rest, width // 3)
    excess = 1 + sum(column + 1 for column in widths if column) + rest - width
    if excess <= 0:
        return widths
    narrowed = list(widths)
    for index in range(len(narrowed) - 1, -1, -1):
        column = narrowed[index]
        if column is None or column <= SQUEEZE_FLOOR:
            continue
        give = min(excess, column - SQUEEZE_FLOOR)
        narrowed[index] = column - give
        excess -= give
        if excess <= 0:
            break
    return tuple(narrowed)


SQUEEZE_FLOOR = 8
"""The narrowest a squeezed column gets (``components…``: still a name)."""


def _fit(text: str, width: int, *, middle: bool = False) -> str:
    """``text`` padded or cut to exactly ``width`` cells; a cut is marked ``…`` so a
    person can tell a shortened name from a whole one: at the end, or (``middle``) a
    third of the way in, keeping the end whole."""
    if cell_len(text) <= width or width < 2:
        return set_cell_size(text, width)
    if not middle or width < 5:
        return set_cell_size(text, width - 1) + "…"
    head = (width - 1) // 3
    tail = _last_cells(text, width - 1 - head)
    return set_cell_size(text, head) + "…" + set_cell_size(tail, width - 1 - head)


def _last_cells(text: str, width: int) -> str:
    """The end of ``text``, at most ``width`` cells of it (wide characters whole)."""
    used = 0
    for index in range(len(text) - 1, -1, -1):
        used += cell_len(text[index])
        if used > width:
            return text[index + 1 :]
    return text
