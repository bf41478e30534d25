"""The app's own high-contrast theme, and each theme's variables made readable.

Some bundled themes pair a variable with a background it barely shows on (textual-dark's
`$text-secondary` on `$surface`, a light theme's cursor text, the footer's accent key
labels on `$panel`); `readable_variables` nudges those variables (the footer's own
background where no text colour can read on it: solarized's blue), per theme, until they
read at `MINIMUM_CONTRAST` (WCAG 2 AA) on the backgrounds the app draws them on. The
cursor's text is made readable the same way, so a row under the cursor, which takes the
cursor's colours (tui/widgets/cursor_option_list.py), reads whatever its state.

ANSI themes (`ansi-dark`, `ansi-light`) name the terminal's own palette, whose colours
only the terminal knows: they are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.color import BLACK, WHITE, Color, ColorParseError
from textual.theme import Theme

MINIMUM_CONTRAST = 4.5
# Aim a little above the minimum: a focused list tints its background by a few percent.
TARGET_CONTRAST = 4.75

# Theme variables used as text colours over the list backgrounds.
TEXT_VARIABLES = (
    "text-success",
    "text-warning",
    "text-error",
    "text-accent",
    "text-primary",
    "text-secondary",
    "text-muted",
    "foreground",
)


HIGH_CONTRAST = Theme(
    name="planwatch-high-contrast",
    primary="#4DA3FF",
    secondary="#7FDBFF",
    accent="#FFD54A",
    warning="#FFD54A",
    error="#FF6B6B",
    success="#5CFF8A",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    boost="#FFFFFF14",
    dark=True,
    variables={
        "text-muted": "#D0D0D0",
        "block-cursor-foreground": "#000000",
        "block-cursor-background": "#FFD54A",
        "block-cursor-blurred-foreground": "#000000",
        "block-cursor-blurred-background": "#BFBFBF",
        "footer-key-foreground": "#FFD54A",
        "border": "#FFFFFF",
        "border-blurred": "#BFBFBF",
    },
)
"""White on black, bright marks, a yellow cursor: every role well above 7:1."""


def contrast(a: Color, b: Color) -> float:
    """The WCAG 2 contrast ratio of two opaque colours (1 to 21)."""

    def luminance(color: Color) -> float:
        def channel(value: int) -> float:
            c = value / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _parse(value: str, under: Color) -> Color | None:
    """A variable's value as an opaque colour drawn over `under` (None: not a colour we
    can know, such as an ANSI name)."""
    value = value.strip()
    if value.startswith("ansi_") or value in ("transparent", ""):
        return None
    alpha = 1.0
    if value.startswith("auto"):
        rest = value[4:].strip()
        if rest.endswith("%"):
            alpha = float(rest[:-1]) / 100
        return under + under.get_contrast_text(alpha)
    try:
        color = Color.parse(value)
    except ColorParseError:
        return None
    return under + color if color.a < 1 else color


def readable(color: Color, backgrounds: list[Color], target: float = TARGET_CONTRAST) -> Color:
    """`color`, moved toward black or white just far enough to reach `target` on every
    one of `backgrounds` (the nearest reachable colour when none reaches it)."""
    if all(contrast(color, bg) >= target for bg in backgrounds):
        return color
    # Toward the end that contrasts with the backgrounds (they are alike: one theme's).
    toward = WHITE if sum(bg.brightness for bg in backgrounds) / len(backgrounds) < 0.5 else BLACK
    for step in range(1, 21):
        moved = color.blend(toward, step / 20)
        if all(contrast(moved, bg) >= target for bg in backgrounds):
            return moved
    return toward


def readable_variables(variables: Mapping[str, str]) -> dict[str, str]:
    """The theme variables to replace so every role reads at TARGET_CONTRAST: text
    colours over the list backgrounds, and the cursor's text over the cursor."""
    background = _parse(variables.get("background", ""), BLACK)
    if background is None:
        return {}
    surface = _parse(variables.get("surface", ""), background) or background
    foreground = _parse(variables.get("foreground", ""), surface) or surface.get_contrast_text(1.0)
    # A focused OptionList tints its surface by 5% of the foreground.
    tinted = surface.blend(foreground, 0.05)
    panel = _parse(variables.get("panel", ""), background) or background
    # A focused DataTable (the store view) tints its $panel header the same way.
    grounds = [background, surface, tinted, panel, panel.blend(foreground, 0.05)]
    changed: dict[str, str] = {}
    for name in TEXT_VARIABLES:
        value = variables.get(name)
        if value is None:
            continue
        parsed = [_parse(value, ground) for ground in grounds]
        colours = [c for c in parsed if c is not None]
        if len(colours) < len(grounds):
            continue
        if all(contrast(c, g) >= TARGET_CONTRAST for c, g in zip(colours, grounds, strict=True)):
            continue
        # A translucent value ("auto 60%") reads differently on each ground: fix the
        # worst, as one opaque colour.
        worst = min(colours, key=lambda c: min(contrast(c, g) for g in grounds))
        changed[name] = readable(worst, grounds).hex
    # The footer's key labels and descriptions over the footer (its $panel by default): an
    # accent key label read at 1.9:1 in catppuccin-latte, 2.9:1 in textual-light.
    changed.update(_readable_footer(variables, _parse(variables.get("footer-background", ""), background) or panel))
    for fg_name, bg_name in (
        ("block-cursor-foreground", "block-cursor-background"),
        ("block-cursor-blurred-foreground", "block-cursor-blurred-background"),
    ):
        cursor_bg = _parse(variables.get(bg_name, ""), surface)
        if cursor_bg is None:
            continue
        fg_value = changed.get(fg_name, variables.get(fg_name, ""))
        cursor_fg = _parse(fg_value, cursor_bg)
        if cursor_fg is None:
            continue
        if contrast(cursor_fg, cursor_bg) < TARGET_CONTRAST:
            fixed = readable(cursor_fg, [cursor_bg])
            if contrast(fixed, cursor_bg) < TARGET_CONTRAST:
                # Even black or white does not read on this cursor: darken or lighten
                # the cursor itself, away from its text.
                away = BLACK if fixed.brightness > 0.5 else WHITE
                for step in range(1, 21):
                    moved = cursor_bg.blend(away, step / 20)
                    if contrast(fixed, moved) >= TARGET_CONTRAST:
                        changed[bg_name] = moved.hex
                        break
            changed[fg_name] = fixed.hex
    return changed


_FOOTER_TEXT = (
    ("footer-key-foreground", "footer-key-background"),
    ("footer-description-foreground", "footer-description-background"),
    ("footer-foreground", ""),
)


def _readable_footer(variables: Mapping[str, str], footer: Color) -> dict[str, str]:
    """The footer's text variables (and, where even white or black cannot read on it, as on
    solarized's blue footer, its background) replaced so each reads at TARGET_CONTRAST."""
    changed: dict[str, str] = {}
    for _ in range(2):  # a second pass only after the footer itself moved
        moved_footer = False
        for fg_name, bg_name in _FOOTER_TEXT:
            own = _parse(variables.get(bg_name, ""), footer) if bg_name else None
            ground = own or footer
            colour = _parse(changed.get(fg_name, variables.get(fg_name, "")), ground)
            if colour is None or contrast(colour, ground) >= TARGET_CONTRAST:
                continue
            fixed = readable(colour, [ground])
            changed[fg_name] = fixed.hex
            if contrast(fixed, ground) < TARGET_CONTRAST and own is None:
                away = BLACK if fixed.brightness > 0.5 else WHITE
                for step in range(1, 21):
                    candidate = footer.blend(away, step / 20)
                    if contrast(fixed, candidate) >= TARGET_CONTRAST:
                        footer = candidate
                        changed["footer-background"] = candidate.hex
                        moved_footer = True
                        break
        if not moved_footer:
            break
    return changed
