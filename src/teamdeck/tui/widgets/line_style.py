"""One-line widgets drawn with the line API (the footer, the overview line): the line
kept until what it is drawn from changes, and the rich ``Style`` of each of its parts.

Each part is styled with a component class in the widget's CSS (``color: $success;
text-style: bold``); :func:`component_style` paints those rules over the widget's own
colours as Textual paints a child widget over its parent, alpha included, so the line
looks as the widgets it replaced did."""

from __future__ import annotations

from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget


def component_style(widget: Widget, *layers: str) -> Style:
    """``widget``'s colours with the component classes ``layers`` painted over them in
    turn (a background over the background, the last colour set, text styles added)."""
    background = widget.background_colors[1]
    color = widget.colors[3]  # its own colour, or the one it inherits
    text_style = Style()
    for name in layers:
        styles = widget.get_component_styles(name)
        if styles.has_rule("background"):
            background += styles.background
        if styles.has_rule("color"):
            color = styles.color
        text_style += styles.text_style
    return text_style + Style.from_color(
        (background + color).rich_color if (background.a or color.a) else None,
        background.rich_color if background.a else None,
    )


class ComponentStyles:
    """:func:`component_style` of one widget, each worked out once until its styles
    change: the owner calls :meth:`clear` from ``notify_style_update`` (a new theme, a
    class toggled). Working one out walks every ancestor's styles, and a line of a
    dozen parts is drawn on nearly every change of the workspace."""

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        self._kept: dict[tuple[str, ...], Style] = {}

    def __call__(self, *layers: str) -> Style:
        style = self._kept.get(layers)
        if style is None:
            style = self._kept[layers] = component_style(self._widget, *layers)
        return style

    def clear(self) -> None:
        self._kept.clear()


class CachedLine(Widget):
    """A widget of one line drawn with the line API and kept until what it is drawn
    from changes: :meth:`drawn_from` says what that is (compared with ``==``),
    :meth:`draw` makes the line. A new theme clears the line and its styles
    (:attr:`component_styles`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.component_styles = ComponentStyles(self)
        self._line: tuple[object, Strip] | None = None
        """The last line drawn, with what it was drawn from."""

    def drawn_from(self, width: int) -> object:
        """What the line at ``width`` is drawn from."""
        raise NotImplementedError

    def draw(self, width: int) -> Strip:
        """The line, ``width`` cells."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y != 0:
            return Strip.blank(width, self.rich_style)
        drawn_from = self.drawn_from(width)
        if self._line is None or self._line[0] != drawn_from:
            self._line = (drawn_from, self.draw(width))
        return self._line[1]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.component_styles.clear()  # a new theme: new colours
        self._line = None
