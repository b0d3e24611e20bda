"""The warm-up crawl: the demo archive, plus pages made to take the paths of a detection
that a dozen tidy pages never take.

Which compiled code a run calls, and with which types, depends on the data: the join's
counts are uint8 or uint16 as the largest count fits; a byte-identical copy leaves the
matcher's index (its rows are gathered out); a paragraph on many pages of unrelated
stories is tested as corpus boilerplate; a page that shares a little of a cluster's story
is weighed by the own-text check before it may join. Measured on the dev Gold Set, the
demo archive alone left six of those to the user's first run (3.4 s there).

The text is made from a fixed seed, so every warm-up compiles the same.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

_WORDS = ("council harbour river library school hospital bridge market station museum budget "
          "report survey winter summer festival election minister teacher doctor farmer court "
          "police museum garden tunnel airport factory railway village county storm drought "
          "price rent wages strike protest vote plan study trial museum record season").split()
_LINKS = ("of the", "and the", "to a", "in the", "for their", "with its", "on a", "at the", "by an")
_BANNER = ("Comments on this story are moderated. Please read our community rules before you post, "
           "and be kind to the other readers: we remove abuse, advertising and anything off topic.")
_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body>
<ul class="nav"><li><a href="/">Home</a></li><li><a href="/news/">News</a></li></ul>
<div class="article"><h1>{title}</h1>
{paragraphs}
</div>
<div class="footer">Copyright {site}. All rights reserved.</div>
</body></html>
"""


def write_crawl(demo: Path, out: Path) -> Path:
    """Write the warm-up crawl into ``out`` (which must not exist) and return it."""
    shutil.copytree(demo, out)
    rng = random.Random(33)
    stories = [[_sentence(rng) for _ in range(12)] for _ in range(8)]
    for n, story in enumerate(stories):  # unrelated stories, one banner: corpus boilerplate
        _write(out / f"syndicate-{n}" / "story.html", f"Story {n}", [" ".join(story[:6]),
               " ".join(story[6:]), _BANNER], f"site {n}")
    mirror = out / "mirror"  # a byte-identical copy: a page the join leaves out
    mirror.mkdir()
    first = sorted(out.glob("syndicate-0/*.html"))[0]
    shutil.copyfile(first, mirror / "copy.html")
    for copy in ("a", "b", "c"):  # story 1 thrice, each with a line of its own: a cluster
        _write(out / f"copies-{copy}" / "story.html", "Story 1", [" ".join(stories[1]), _sentence(rng)],
               f"copies {copy}")
    # A third of story 1 beside text of its own: a weak join the own-text check weighs.
    _write(out / "roundup" / "weak.html", "Round-up", [" ".join(stories[1][:4]),
           " ".join(_sentence(rng) for _ in range(8))], "round-up")
    # One sentence 300 times: a signature counted more than 255 times (uint16 counts).
    _write(out / "repeats" / "page.html", "Repeats", [" ".join([_sentence(random.Random(1))] * 300)],
           "repeats")
    return out


def _sentence(rng: random.Random) -> str:
    words = [f"{rng.choice(_WORDS)} {rng.choice(_LINKS)} {rng.choice(_WORDS)}" for _ in range(5)]
    return "The " + " ".join(words) + "."


def _write(path: Path, title: str, paragraphs: list[str], site: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(f"<p>{p}</p>" for p in paragraphs)
    path.write_text(_PAGE.format(title=title, paragraphs=body, site=site), encoding="utf-8")
