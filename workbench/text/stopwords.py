"""Stopwords skipped inside spot chains, and the default antecedent words.

The list is ours: common English function words plus the fragments our tokenizer
makes of contractions ("don't" -> "don", "t").
"""

from __future__ import annotations

ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
    a about above across after afterwards again against all almost alone along already also
    although always am among amongst an and another any anybody anyhow anyone anything anyway
    anywhere are around as at back be became because become becomes becoming been before
    beforehand behind being below beside besides between beyond both but by can cannot could
    did do does doing done down during each either else elsewhere enough etc even ever every
    everyone everything everywhere except few for former formerly from further had has have
    having he hence her here hereafter hereby herein hereupon hers herself him himself his how
    however i if in indeed into is it its itself just last latter latterly least less many may
    me meanwhile might mine more moreover most mostly much must my myself namely neither never
    nevertheless next no nobody none noone nor not nothing now nowhere of off often on once one
    only onto or other others otherwise our ours ourselves out over own per perhaps rather same
    seem seemed seeming seems several she should since so some somehow someone something
    sometime sometimes somewhere still such than that the their theirs them themselves then
    thence there thereafter thereby therefore therein thereupon these they this those though
    through throughout thru thus to together too toward towards under until up upon us very via
    was we well were what whatever when whence whenever where whereafter whereas whereby wherein
    whereupon wherever whether which while whither who whoever whole whom whose why will with
    within without would yet you your yours yourself yourselves
    s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn
    couldn cant
    """.split()
)

# The paper's best antecedent set (SIGIR'08 §5.3.2): articles and the forms of
# be, can, will, have and do.
DEFAULT_ANTECEDENTS: tuple[str, ...] = (
    "a", "an", "the",
    "am", "is", "are", "was", "were", "be", "been", "being",
    "can", "could",
    "will", "would",
    "have", "has", "had", "having",
    "do", "does", "did", "doing", "done",
)
