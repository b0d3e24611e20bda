#!/usr/bin/env python3
"""Write workbench/resources/demo-archive: a small crawl of invented news pages.

Four invented stories, each framed by two or three invented site layouts (navigation,
ads, teasers, footers), plus pages that share a layout but carry other stories. Run it
again after editing; the output is deterministic.
"""

from __future__ import annotations

import html
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "workbench" / "resources" / "demo-archive"

STORIES = {
    "harbour-strike": (
        "Dock workers walk out over night-shift pay",
        [
            "Hundreds of dock workers at the Port of Allenby walked off the job on Monday "
            "after talks over night-shift pay broke down late on Sunday, leaving a queue of "
            "container ships waiting outside the harbour.",
            "The union representing the crane operators said the port authority had refused "
            "to restore a premium that was cut two years ago, when the harbour was still "
            "recovering from the collapse of its largest shipping customer.",
            "A spokesman for the port authority said the offer on the table was the most "
            "generous in a decade and that the strike would hurt the very families the union "
            "claims to defend. He added that the authority was ready to return to talks.",
            "Local shop owners fear a long dispute. The harbour is the biggest employer in "
            "the town, and a strike in 1998 lasted eleven weeks and closed several cafes "
            "along the waterfront for good.",
        ],
    ),
    "library-hours": (
        "City council votes to cut library opening hours",
        [
            "The city council voted seven to four on Thursday to cut opening hours at the "
            "central library and three branch libraries, a move it says will save the city "
            "about two million over the next budget year.",
            "Supporters of the plan argued that visits have fallen steadily since the "
            "pandemic and that the money is needed to repair the roofs of two schools. "
            "Opponents said the libraries are the only warm and quiet place for many "
            "students and older residents.",
            "A petition against the cuts has gathered more than twelve thousand signatures. "
            "Its organiser, a retired teacher, said the campaign would now turn to next "
            "spring's election and ask every candidate where they stand.",
        ],
    ),
    "river-flood": (
        "Flood warnings raised as the river keeps rising",
        [
            "Emergency services raised the flood warning for the lower valley to its highest "
            "level on Tuesday night as the river rose faster than forecasters had expected "
            "after three days of heavy rain.",
            "Residents of the riverside streets were told to move cars and valuables to "
            "higher ground. The fire brigade has set up sandbag points at the old market "
            "hall and at the sports centre on the hill road.",
            "Forecasters expect the water to peak on Wednesday afternoon. The last time the "
            "river reached a similar height, in 2007, more than four hundred homes were "
            "flooded and the main bridge was closed for a week.",
        ],
    ),
    "robot-surgery": (
        "Hospital trial finds robot-assisted surgery shortens recovery",
        [
            "Patients who had knee replacements with the help of a surgical robot left the "
            "hospital a day earlier on average than those operated on by hand, according to "
            "a trial published on Friday.",
            "The study followed six hundred patients at four hospitals over two years. The "
            "authors caution that the robot is expensive and that the gain in recovery time "
            "may shrink as surgeons become more familiar with the standard technique.",
            "A spokeswoman for the health ministry said the results were encouraging but that "
            "no decision on wider use would be made before a cost review is finished next "
            "year.",
        ],
    ),
    "school-meals": (
        "Free school meals to be extended to all primary pupils",
        [
            "All primary school pupils in the region will receive free lunches from "
            "September, the education minister announced on Wednesday, ending years of "
            "argument over who should qualify.",
            "Head teachers welcomed the decision but warned that many school kitchens are too "
            "small to cook for every pupil and will need new equipment before the autumn "
            "term begins.",
        ],
    ),
}

SITES = {
    "dailycourier": {
        "name": "The Daily Courier",
        "nav": ["Home", "News", "Business", "Sport", "Culture", "Weather", "Obituaries",
                "Classifieds", "Subscribe"],
        "ad": "Save 40% on your first year of the Daily Courier - subscribe today",
        "footer": "Copyright The Daily Courier. All rights reserved. Terms of use. "
                  "Privacy policy. Contact the newsroom. Advertise with us.",
    },
    "metroherald": {
        "name": "Metro Herald Online",
        "nav": ["Front page", "Local", "National", "World", "Opinion", "Photos", "Video",
                "Traffic", "Jobs", "Homes", "Cars"],
        "ad": "Mortgage rates as low as you like! Click here to compare offers now",
        "footer": "Metro Herald Online is a service of Herald Media Group. Site map. "
                  "Help. Corrections. Reprints and permissions.",
    },
    "valleynews": {
        "name": "Valley News Network",
        "nav": ["Top stories", "Valley", "Region", "Money", "Health", "Schools", "Events"],
        "ad": "Valley Motors spring sale: zero percent finance on every new car",
        "footer": "Valley News Network. Independent local news since 1954. About us. "
                  "Careers. Newsletter sign-up.",
    },
}

# (site, story, variant): variant text edits make near duplicates, not exact copies.
PAGES = [
    ("dailycourier", "harbour-strike", 0),
    ("metroherald", "harbour-strike", 1),
    ("valleynews", "harbour-strike", 2),
    ("dailycourier", "library-hours", 0),
    ("metroherald", "library-hours", 1),
    ("valleynews", "river-flood", 0),
    ("dailycourier", "river-flood", 1),
    ("metroherald", "river-flood", 2),
    ("metroherald", "robot-surgery", 0),
    ("valleynews", "robot-surgery", 1),
    ("dailycourier", "school-meals", 0),
    ("valleynews", "library-hours", 2),
]


def teasers(site: str, story: str) -> list[str]:
    return [STORIES[s][0] for s in sorted(STORIES) if s != story][:3]


def render(site: str, story: str, variant: int) -> str:
    s = SITES[site]
    headline, paragraphs = STORIES[story]
    paragraphs = list(paragraphs)
    if variant == 1:  # a wire copy with a dateline and the last paragraph dropped
        paragraphs[0] = "(Wire) " + paragraphs[0]
        paragraphs = paragraphs[:-1] if len(paragraphs) > 2 else paragraphs
    elif variant == 2:  # an edited copy with an extra closing line
        paragraphs.append("This story will be updated as more information becomes available.")
    e = html.escape
    nav = "".join(f'<li><a href="/{e(n.lower())}/">{e(n)}</a></li>' for n in s["nav"])
    more = "".join(f'<li><a href="/story/{k}">{e(t)}</a></li>' for k, t in enumerate(teasers(site, story)))
    body = "\n".join(f"<p>{e(p)}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{e(headline)} | {e(s["name"])}</title>
<style>body {{ font-family: serif; }} .ad {{ border: 1px solid #ccc; }}</style>
<script>var analytics = {{ site: "{site}", section: "news" }};</script>
</head><body>
<div class="masthead"><a href="/">{e(s["name"])}</a></div>
<ul class="nav">{nav}</ul>
<div class="ad"><a href="/ads/1">{e(s["ad"])}</a></div>
<div class="article"><h1>{e(headline)}</h1>
<div class="byline">By staff reporters</div>
{body}
</div>
<div class="more"><h3>More stories</h3><ul>{more}</ul></div>
<div class="footer">{e(s["footer"])}</div>
<!-- served by edge-cache 7 -->
</body></html>
"""


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.rglob("*.html"):
        old.unlink()
    for site, story, variant in PAGES:
        folder = OUT / site
        folder.mkdir(exist_ok=True)
        (folder / f"{story}.html").write_text(render(site, story, variant), encoding="utf-8")
    print(f"wrote {len(PAGES)} pages to {OUT}")


if __name__ == "__main__":
    main()
