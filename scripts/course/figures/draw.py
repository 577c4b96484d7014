"""The drawing vocabulary every figure shares, on drawsvg: one palette (Okabe and Ito's, which
readers with any common colour-vision deficiency tell apart), hatching so that no meaning
rests on colour alone, and text as plain SVG <text> that the reader's browser sets in its
own Korean font. Nothing here measures a font: widths are estimated from the characters, and
every coordinate is rounded, so the same figure is the same bytes on every machine."""
import drawsvg as dw

# Okabe and Ito's colour-blind-safe palette.
BLUE = "#0072B2"
ORANGE = "#E69F00"
SKY = "#56B4E9"
GREEN = "#009E73"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
YELLOW = "#F0E442"
INK = "#222222"
GREY = "#767676"
LIGHT = "#E8E8E8"
PALE = "#F5F5F5"
WHITE = "#FFFFFF"

# Warp w's colour, and whether its cells are hatched (warp 1, 3, ...): the shape tells the
# warps apart where the colour does not.
WARP_COLOURS = (BLUE, ORANGE, GREEN, PURPLE)

FONT = ("'Noto Sans KR', 'Noto Sans CJK KR', 'Apple SD Gothic Neo', 'Malgun Gothic', "
        "'NanumGothic', sans-serif")
MONO = "'DejaVu Sans Mono', 'Consolas', 'Menlo', monospace"


def r(value):
    """A coordinate as SVG will print it: an int where it is whole, else one decimal."""
    value = round(float(value), 1)
    return int(value) if value == int(value) else value


def text_width(text, size):
    """About how wide `text` is at `size`: Hangul and other wide characters one em, the rest
    0.6 em (a fixed estimate, never a font's metrics, so layout is the same everywhere)."""
    return sum(size if ord(c) >= 0x1100 else 0.6 * size for c in text)


def warp_colour(warp):
    return WARP_COLOURS[warp % len(WARP_COLOURS)]


class Figure:
    """One SVG drawing: a white page with a title, and the shapes the figures are made of."""

    def __init__(self, name, width, height, title=None, subtitle=None):
        self.width, self.height = r(width), r(height)
        self.d = dw.Drawing(self.width, self.height, id_prefix=name + "-")
        if title:  # what a screen reader announces
            self.d.append_title(title)
        self.d.append(dw.Rectangle(0, 0, self.width, self.height, fill=WHITE))
        self._patterns = {}
        self._markers = {}
        if title:
            self.text(title, 16, 26, size=16, weight="bold")
        if subtitle:
            self.text(subtitle, 16, 46, size=12, fill=GREY)

    # ------------------------------------------------------------------ patterns
    def hatch(self, colour=WHITE, kind="diagonal", spacing=6, width=1.6):
        """A fill of lines over what is beneath: 'diagonal', 'cross' or 'dots'."""
        key = (colour, kind, spacing, width)
        if key not in self._patterns:
            p = dw.Pattern(spacing, spacing, patternUnits="userSpaceOnUse")
            s = spacing
            if kind in ("diagonal", "cross"):
                p.append(dw.Line(0, s, s, 0, stroke=colour, stroke_width=width))
                p.append(dw.Line(-1, 1, 1, -1, stroke=colour, stroke_width=width))
                p.append(dw.Line(s - 1, s + 1, s + 1, s - 1, stroke=colour, stroke_width=width))
            if kind == "cross":
                p.append(dw.Line(0, 0, s, s, stroke=colour, stroke_width=width))
            if kind == "dots":
                p.append(dw.Circle(s / 2, s / 2, width, fill=colour))
            self._patterns[key] = p
        return self._patterns[key]

    def _marker(self, colour):
        if colour not in self._markers:
            m = dw.Marker(-0.1, -0.5, 0.9, 0.5, scale=7, orient="auto")
            m.append(dw.Lines(-0.1, 0.5, -0.1, -0.5, 0.9, 0, fill=colour, close=True))
            self._markers[colour] = m
        return self._markers[colour]

    # ------------------------------------------------------------------ shapes
    def rect(self, x, y, w, h, fill=WHITE, stroke=INK, stroke_width=1, dash=None, hatch=None,
             rx=0):
        """A box; `hatch` (a pattern from hatch()) is laid over the fill."""
        extra = {"stroke_dasharray": dash} if dash else {}
        if rx:
            extra["rx"] = rx
        self.d.append(dw.Rectangle(r(x), r(y), r(w), r(h), fill=fill, stroke=stroke,
                                   stroke_width=stroke_width, **extra))
        if hatch is not None:
            self.d.append(dw.Rectangle(r(x), r(y), r(w), r(h), fill=hatch, stroke="none"))

    def line(self, x1, y1, x2, y2, colour=INK, width=1, dash=None, arrow=False):
        extra = {"stroke_dasharray": dash} if dash else {}
        if arrow:
            extra["marker_end"] = self._marker(colour)
        self.d.append(dw.Line(r(x1), r(y1), r(x2), r(y2), stroke=colour, stroke_width=width,
                              **extra))

    def curve(self, x1, y1, cx, cy, x2, y2, colour=INK, width=1, arrow=True, dash=None):
        """A quadratic curve from (x1, y1) to (x2, y2) bent towards (cx, cy)."""
        extra = {"stroke_dasharray": dash} if dash else {}
        if arrow:
            extra["marker_end"] = self._marker(colour)
        path = dw.Path(stroke=colour, stroke_width=width, fill="none", **extra)
        path.M(r(x1), r(y1)).Q(r(cx), r(cy), r(x2), r(y2))
        self.d.append(path)

    def grid_lines(self, x, y, w, h, count, colour):
        """The separators of `count` boxes of width w in a row, as one path."""
        path = dw.Path(stroke=colour, stroke_width=1, fill="none")
        for i in range(1, count):
            path.M(r(x + i * w - 1), r(y)).V(r(y + h))
        self.d.append(path)

    def circle(self, x, y, radius, fill=INK, stroke="none", stroke_width=1):
        self.d.append(dw.Circle(r(x), r(y), r(radius), fill=fill, stroke=stroke,
                                stroke_width=stroke_width))

    def text(self, text, x, y, size=12, anchor="start", weight=None, fill=INK, mono=False,
             italic=False, halo=None):
        """`halo`: a colour drawn around the letters, so that text on a hatched box reads."""
        extra = {}
        if halo:
            extra.update(stroke=halo, stroke_width=3, paint_order="stroke",
                         stroke_linejoin="round")
        if weight:
            extra["font_weight"] = weight
        if italic:
            extra["font_style"] = "italic"
        if anchor != "start":
            extra["text_anchor"] = anchor
        self.d.append(dw.Text(str(text), r(size), r(x), r(y), fill=fill,
                              font_family=MONO if mono else FONT, **extra))

    def lines(self, texts, x, y, size=12, gap=None, **kwargs):
        """Several lines of text, one below the other; returns the y after the last."""
        gap = gap or round(size * 1.45)
        for i, t in enumerate(texts):
            self.text(t, x, y + i * gap, size=size, **kwargs)
        return y + len(texts) * gap

    def cell(self, x, y, w, h, label=None, fill=WHITE, text_fill=INK, stroke=INK, hatch=None,
             size=12, weight=None, dash=None, stroke_width=1, mono=True):
        """A box with a centred label."""
        self.rect(x, y, w, h, fill=fill, stroke=stroke, hatch=hatch, dash=dash,
                  stroke_width=stroke_width)
        if label is not None and label != "":
            self.text(label, x + w / 2, y + h / 2 + size * 0.36, size=size, anchor="middle",
                      fill=text_fill, weight=weight, mono=mono,
                      halo=fill if hatch is not None else None)

    def legend(self, items, x, y, size=12, box=14, gap=22):
        """Items (draw(fig, x, y, box), label) left to right; returns the x after the last."""
        for draw_swatch, label in items:
            draw_swatch(self, x, y - box + 3, box)
            self.text(label, x + box + 6, y, size=size)
            x += box + 6 + text_width(label, size) + gap
        return x

    def footer(self, items, notes, y, size=12):
        """A legend at y and grey notes below it: how most figures end."""
        self.legend(items, 16, y, size=size)
        return self.lines(list(notes), 16, y + 26, size=size, fill=GREY)

    def svg(self):
        return self.d.as_svg() + "\n"


# Swatches for legends: each draws one box of side `box` at (x, y).
def swatch(fill=WHITE, stroke=INK, hatch_colour=None, kind="diagonal", dash=None):
    def draw(fig, x, y, box):
        hatch = fig.hatch(hatch_colour, kind) if hatch_colour else None
        fig.rect(x, y, box, box, fill=fill, stroke=stroke, hatch=hatch, dash=dash)
    return draw


def warp_swatch(warp):
    return swatch(fill=warp_colour(warp), hatch_colour=WHITE if warp % 2 else None)


def on_colour(colour):
    """The text colour that reads on a box of `colour`: black on orange and yellow."""
    return INK if colour in (ORANGE, YELLOW, SKY, PURPLE) else WHITE


def warp_cell(fig, warp, x, y, w, h, label=None, size=12):
    """A thread that works this step: its warp's colour, odd warps hatched."""
    colour = warp_colour(warp)
    fig.cell(x, y, w, h, label=label, fill=colour, text_fill=on_colour(colour), size=size,
             weight="bold", hatch=fig.hatch(WHITE) if warp % 2 else None)


def idle_cell(fig, x, y, w, h, label=None, size=12):
    """A thread or slot that does nothing this step: an empty box with a grey outline."""
    fig.cell(x, y, w, h, label=label, fill=WHITE, stroke=GREY, text_fill=GREY, size=size)


def span(first, last):
    """'0–3', or '0' where the range is one number."""
    return str(first) if first == last else f"{first}–{last}"


def fmt(value, digits=3):
    """A number as a figure prints it: whole numbers bare, others with up to `digits`
    decimals, -inf as -inf."""
    if value == float("-inf"):
        return "-inf"
    if float(value) == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.{digits}f}".rstrip("0").rstrip(".")
