"""What HTML elements mean for the visible text: hidden, a layout block, or empty by rule."""

from __future__ import annotations

# Elements whose content a reader never sees.
INVISIBLE = frozenset(
    {"script", "style", "noscript", "template", "head", "iframe", "object", "embed", "svg",
     "math", "select", "textarea", "button"}
)
# Elements that start a new visual block.
BLOCK = frozenset(
    {"address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
     "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
     "frame", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "legend", "li",
     "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td",
     "tfoot", "th", "thead", "title", "tr", "ul", "option"}
)
# Void elements (HTML: no end tag, never any content) that libxml2's HTML parser (2.14) opens
# as containers, so that everything up to the end of their parent lands inside them. Inside
# <embed> (invisible) that text was dropped with it: one Gold Set page lost 166 words.
VOID_OPENED_AS_CONTAINERS = ("embed", "source", "track", "wbr", "keygen", "bgsound")
