"""A small archive written for a test: ``n`` stories, each published by two sites (so
detection finds ``n`` clusters of two pages), in the demo archive's saved-page form."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = ("harbour council budget river school hospital union strike flood mayor police "
         "library teachers nurses workers market bridge railway farmers court judge vote "
         "election tax rent housing fire storm museum festival factory airport water energy "
         "prices wages contract protest report study minister village museum").split()
GLUE = ("the", "a", "of", "to", "and", "was", "on", "at", "for", "by", "that", "with",
        "is", "in", "from", "has", "after", "said")


def _story(rng: random.Random) -> tuple[str, list[str]]:
    title = " ".join(rng.choice(WORDS) for _ in range(6)).capitalize()
    paragraphs = []
    for _ in range(4):
        words = []
        for _ in range(45):
            words += [rng.choice(GLUE), rng.choice(WORDS)]
        paragraphs.append(" ".join(words).capitalize() + ".")
    return title, paragraphs


def _page(site: str, title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title} | {site}</title></head><body>"
            f"<div class=\"masthead\">{site}</div><div class=\"article\"><h1>{title}</h1>"
            f"{body}</div><div class=\"footer\">{site} is a news site.</div></body></html>")


def write_stories(root: Path, n: int, seed: int = 11) -> Path:
    rng = random.Random(seed)
    for k in range(n):
        title, paragraphs = _story(rng)
        for site in ("northgazette", "southtimes"):
            folder = root / site
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"story-{k:02d}.html").write_text(_page(site, title, paragraphs),
                                                        encoding="utf-8")
    return root
