"""The footer: the keys of the focused panel from the left, and ``q`` (quit), ``?``
(help) and the palette key kept together at the right edge. When the keys do not fit
(80 columns) their labels shorten to their first word, then the panel's keys are drawn
compact (as Textual's ``Footer(compact=True)``: no padding around the key, one space
before its label), then keys lose their labels - quit, help and the palette first
(known by their keys), then the panel's greyed keys, then the ones that apply, from
the last: whole words, every key shown; only a line still too narrow for the keys alone
is cut (the wheel scrolls it), and never at quit, help and the palette.

It looks and behaves like Textual's ``Footer`` (same theme variables, a key is
clickable, hovering shows it, the mouse wheel scrolls keys cut at the edge into view)
but is one widget drawn as one line (the line API), not a container of a widget per
key: Textual's footer removes and mounts all its key widgets whenever the keys change
(opening and closing the confirm bar: two rebuilds, each a mount, styles and two
layouts of the whole screen, ~8 ms of the approve key's 30). Here a change of keys only
repaints this line. Key groups (``Binding.Group``) are drawn as single keys: no binding
of this app has one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip

from teamdeck.tui.widgets.line_style import CachedLine

ESSENTIAL = ("quit", "help")
"""Actions whose keys the footer always shows (at the right edge)."""
SEPARATOR = "▏"
"""Drawn left of the palette key (Textual's footer: a ``vkey`` left border)."""
SCROLL_STEP = 4
"""Columns the mouse wheel moves the panel's keys by."""


LABEL_LEVELS: tuple[Callable[[str], str], Callable[[str], str], Callable[[str], str]] = (
    lambda label: label,
    lambda label: label.split()[0] if label.split() else label,
    lambda label: "",
)
"""A key's label ever shorter, whole words: as written, its first word, none."""


@dataclass(frozen=True)
class FooterItem:
    """One key as drawn: its binding's key (what a click presses), action and tooltip,
    and its pieces of text with the component class of each."""

    key: str
    action: str
    enabled: bool
    tooltip: str
    pieces: tuple[tuple[str, str], ...]

    @property
    def width(self) -> int:
        return sum(cell_len(text) for text, _ in self.pieces)


class DeckFooter(CachedLine, can_focus=False):
    """The footer of the main screen (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "deck-footer--item",
        "deck-footer--hover",
        "deck-footer--key",
        "deck-footer--description",
        "deck-footer--separator",
    }
    DEFAULT_CSS = """
    DeckFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .deck-footer--item { background: $footer-item-background; }
        & > .deck-footer--hover { color: $footer-key-foreground; background: $block-hover-background; }
        & > .deck-footer--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .deck-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .deck-footer--separator { color: $foreground 20%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._left: tuple[FooterItem, ...] = ()
        self._right: tuple[FooterItem, ...] = ()
        self._stale = True
        self._hover: FooterItem | None = None
        self._scroll = 0
        self._width = 0
        """The width the keys were laid out for (their labels depend on it)."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # As Textual's footer: keep the keys while the terminal has no focus (the app
        # blurs its widgets then, which would show the wrong keys until it is back).
        if screen.app.app_focus and screen is self.screen:
            self._stale = True
            self.refresh()

    # --- what is shown ------------------------------------------------------------------

    def _read_keys(self, width: int) -> None:
        """The items of the screen's active bindings: one per action (its first key,
        as Textual's footer), the essential ones and the palette's on the right; with
        labels as long as ``width`` allows (see the module docstring)."""
        app = self.app
        bindings = self.screen.active_bindings
        keys: list[tuple[Binding, bool, str]] = []
        seen: set[str] = set()
        for _node, binding, enabled, tooltip in bindings.values():
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                keys.append((binding, enabled, tooltip))
        palette = bindings.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None

        def items(shorten: Callable[[str], str], essential: bool, *, compact: bool = False) -> list[FooterItem]:
            found = [
                _item(binding, app.get_key_display(binding), enabled, tooltip, shorten(binding.description), compact)
                for binding, enabled, tooltip in keys
                if (binding.action in ESSENTIAL) == essential
            ]
            if essential and palette is not None:
                found.append(_palette_item(palette[1], palette[2], app.get_key_display(palette[1]), shorten))
            return found

        def fits(*rows: list[FooterItem]) -> bool:
            return sum(item.width for row in rows for item in row) <= width

        full, first_words, bare = LABEL_LEVELS
        left, right = items(full, False), items(full, True)
        if not fits(left, right):
            left, right = items(first_words, False), items(first_words, True)
        if not fits(left, right):
            left = items(first_words, False, compact=True)
        if not fits(left, right):
            # Quit, help and the palette are known by their keys; then the panel's keys
            # lose their label, the greyed ones first (they do nothing now), each from
            # the last, so the first keys that apply keep theirs.
            right, bare_left = items(bare, True), items(bare, False, compact=True)
            last_first = range(len(left) - 1, -1, -1)
            order = [i for i in last_first if not left[i].enabled] + [i for i in last_first if left[i].enabled]
            for index in order:
                if fits(left, right):
                    break
                left[index] = bare_left[index]
        self._left, self._right = tuple(left), tuple(right)

    def _spans(self, width: int) -> list[tuple[FooterItem, int, int]]:
        """Every visible item with the columns it covers, ``[start, end)`` (a panel
        key cut by the right-hand keys covers what is left of it)."""
        right_width = sum(item.width for item in self._right)
        room = max(0, width - right_width)
        spans = []
        x = -self._scroll
        for item in self._left:
            start, end = max(0, x), min(room, x + item.width)
            if start < end:
                spans.append((item, start, end))
            x += item.width
        x = room
        for item in self._right:
            spans.append((item, x, min(width, x + item.width)))
            x += item.width
        return spans

    def region_of(self, action: str) -> Region | None:
        """Where the key of ``action`` is on screen (None: not shown)."""
        for item, start, end in self._spans(self.size.width):
            if item.action == action:
                return Region(self.region.x + start, self.region.y, end - start, 1)
        return None

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions whose keys are shown, left to right (cut ones included)."""
        return tuple(item.action for item in (*self._left, *self._right))

    # --- drawing ------------------------------------------------------------------------

    def drawn_from(self, width: int) -> object:
        if (self._stale or width != self._width) and self.is_attached:
            self._read_keys(width)
            self._stale, self._width = False, width
        return (width, self._left, self._right, self._hover, self._scroll)

    def draw(self, width: int) -> Strip:
        blank = Style(bgcolor=self.rich_style.bgcolor)
        segments: list[Segment] = []
        used = 0
        for item, start, end in self._spans(width):
            if start > used:
                segments.append(Segment(" " * (start - used), blank))
            offset = start - self._item_x(item)
            segments.extend(self._item_segments(item, offset, end - start))
            used = end
        if used < width:
            segments.append(Segment(" " * (width - used), blank))
        return Strip(segments, width)

    def _item_x(self, item: FooterItem) -> int:
        """Where ``item`` starts, unclipped (left keys move with the scroll)."""
        items = self._left if item in self._left else self._right
        x = -self._scroll if items is self._left else self.size.width - sum(i.width for i in self._right)
        for other in items:
            if other is item:
                return x
            x += other.width
        return x

    def _item_segments(self, item: FooterItem, skip: int, length: int) -> list[Segment]:
        """The cells ``[skip, skip + length)`` of ``item``."""
        # Painted as Textual's footer: the footer, the key widget, then the key's part.
        layer = "deck-footer--hover" if item is self._hover else "deck-footer--item"
        segments = []
        for text, component in item.pieces:
            if component:
                style = self.component_styles(layer, component) + (Style() if item.enabled else Style(dim=True))
            else:  # padding: the background alone
                style = Style(bgcolor=self.component_styles(layer).bgcolor)
            segments.append(Segment(text, style))
        if (skip, length) == (0, item.width):
            return segments
        return list(Segment.divide(segments, [skip, skip + length]))[1]

    # --- the mouse ----------------------------------------------------------------------

    def _item_at(self, x: int) -> FooterItem | None:
        return next((item for item, start, end in self._spans(self.size.width) if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._item_at(event.x))

    def on_leave(self) -> None:
        self._set_hover(None)

    def _set_hover(self, item: FooterItem | None) -> None:
        if item is self._hover:
            return
        self._hover = item
        self.tooltip = item.tooltip if item is not None and item.tooltip else None
        self.styles.pointer = "pointer" if item is not None else "default"
        self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        item = self._item_at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_by(SCROLL_STEP, event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_by(-SCROLL_STEP, event)

    def _scroll_by(self, step: int, event: events.MouseEvent) -> None:
        """Move the panel's keys by ``step`` columns, within what is cut."""
        room = max(0, self.size.width - sum(item.width for item in self._right))
        hidden = max(0, sum(item.width for item in self._left) - room)
        scroll = max(0, min(hidden, self._scroll + step))
        if scroll != self._scroll:
            self._scroll = scroll
            self.refresh()
            event.stop()


def _palette_item(binding: Binding, enabled: bool, shown: str, shorten: Callable[[str], str]) -> FooterItem:
    """The palette's key, after a separator (as Textual's footer draws it)."""
    label = shorten(binding.description)
    pieces = (
        (SEPARATOR, "deck-footer--separator"),
        (shown, "deck-footer--key"),
        *(((f" {label}", "deck-footer--description"),) if label else ()),
        (" ", ""),
    )
    return FooterItem(binding.key, binding.action, enabled, binding.tooltip or binding.description, pieces)


def _item(binding: Binding, shown: str, enabled: bool, tooltip: str, label: str, compact: bool = False) -> FooterItem:
    """The footer item of one key, ``shown`` as the app displays it, with ``label``;
    ``compact``: one space before the key and one before its label, none after."""
    pieces: tuple[tuple[str, str], ...]
    if not label:
        pieces = ((f" {shown}", "deck-footer--key"),)
    elif compact:
        pieces = ((f" {shown}", "deck-footer--key"), (f" {label}", "deck-footer--description"))
    else:
        pieces = ((f" {shown} ", "deck-footer--key"), (f"{label} ", "deck-footer--description"))
    return FooterItem(binding.key, binding.action, enabled, tooltip or binding.description, pieces)
