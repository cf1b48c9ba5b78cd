"""The Markdown report as one self-contained HTML page."""

from __future__ import annotations

import html

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #111; }}
table {{ border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }}
th, td {{ border: 1px solid #999; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }}
th {{ background: #eee; }}
img {{ max-width: 100%; }}
code {{ font-size: 0.85rem; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


def render_html(markdown: str, title: str = "MedSP competency-gap report") -> str:
    """The Markdown report as one HTML page (raw HTML in log text is escaped, not run).
    markdown_it is the ``report`` extra's: imported here, so importing the report does not
    need it."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return PAGE.format(title=html.escape(title), body=md.render(markdown))
