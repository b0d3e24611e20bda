"""Simhash: the fingerprint, the exact permuted-table index (batch and stream), the detector."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO, shared_path
from workbench.core.progress import Cancelled
from workbench.detect.detector import PageText
from workbench.detect.simhash import index as simhash_index
from workbench.detect.simhash import loops as simhash_loops
from workbench.detect.simhash.index import (
    BITS,
    MAX_TABLE_K,
    SimhashStream,
    blocks_of,
    pairs_within,
    tables_of,
)
from workbench.detect.simhash.simhash import (
    SimhashDetector,
    distance_of,
    features_of,
    fingerprint,
    simhash,
    word_hashes,
)
from workbench.detect.texts import read_texts

MASK = (1 << 64) - 1
WORDS = st.text(st.characters(categories=("L", "N", "Pc")), min_size=1, max_size=30)

# ---------------------------------------------------------------- references, one item at a time


def _mix(h: int) -> int:
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK
    return h ^ (h >> 33)


def reference_word_hash(word: str) -> int:
    """word_hashes' definition, written out for one word."""
    data = word.encode("utf-8")
    padded = data + b"\0" * (-len(data) % 8)
    combined = 0
    for position in range(len(padded) // 8):
        chunk = int.from_bytes(padded[8 * position : 8 * position + 8], "little")
        combined ^= _mix(chunk ^ ((position + 1) * 0x9E3779B97F4A7C15 & MASK))
    return _mix(combined ^ (len(data) * 0xC4CEB9FE1A85EC53 & MASK))


def reference_simhash(hashes: list[int], weights: list[float]) -> int:
    """Charikar's construction as written: a signed vote per bit, then the sign."""
    votes = [0.0] * 64
    for h, w in zip(hashes, weights, strict=True):
        for bit in range(64):
            votes[bit] += w if h >> bit & 1 else -w
    return sum(1 << bit for bit in range(64) if votes[bit] > 0)


def brute_pairs(fps: list[int], k: int) -> dict[tuple[int, int], int]:
    return {(a, b): d for a, b in combinations(range(len(fps)), 2)
            if (d := (fps[a] ^ fps[b]).bit_count()) <= k}


def found_pairs(result) -> dict[tuple[int, int], int]:
    pairs = list(zip(result.a.tolist(), result.b.tolist(), strict=True))
    assert len(pairs) == len(set(pairs)), "a pair was reported twice"
    distances = np.rint((1.0 - result.similarity) * 64).astype(int).tolist()
    return dict(zip(pairs, distances, strict=True))


@st.composite
def near_fingerprints(draw: st.DrawFn, k: int) -> list[int]:
    """Random fingerprints plus copies of some with 0..k+1 bits flipped (so pairs at,
    inside and just outside distance k exist), in a random order."""
    base = draw(st.lists(st.integers(0, MASK), min_size=1, max_size=30))
    planted = draw(st.lists(
        st.tuples(st.integers(0, len(base) - 1),
                  st.lists(st.integers(0, 63), max_size=k + 1, unique=True)),
        max_size=30))
    fps = base + [base[i] ^ sum(1 << bit for bit in bits) for i, bits in planted]
    return draw(st.permutations(fps))


# ---------------------------------------------------------------- the fingerprint


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, max_size=40))
def test_word_hashes_equal_the_one_word_definition(words: list[str]) -> None:
    assert word_hashes(words).tolist() == [reference_word_hash(w) for w in words]


def test_word_hashes_tell_apart_words_that_pad_alike() -> None:
    hashes = word_hashes(["ab", "ab\0", "ab\0\0\0\0\0\0", "ba", "abcdefgh", "abcdefgh\0"])
    assert len(set(hashes.tolist())) == 6


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, MASK), st.integers(1, 50)), max_size=40, unique_by=lambda t: t[0]))
def test_simhash_equals_charikars_vote(features: list[tuple[int, int]]) -> None:
    hashes = [h for h, _ in features]
    weights = [float(w) for _, w in features]
    got = simhash(np.array(hashes, dtype=np.uint64), np.array(weights, dtype=np.float64))
    assert got == reference_simhash(hashes, weights)


@settings(max_examples=40, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_word_fingerprint_is_of_the_bag_of_words(words: list[str], rng) -> None:
    shuffled = list(words)
    rng.shuffle(shuffled)
    text = " ".join(words)
    assert fingerprint(" ".join(shuffled)) == fingerprint(text)
    hashes, weights = features_of([w.lower() for w in words])
    # Weights are term frequencies: they add up to the number of words.
    assert weights.sum() == len(words)
    assert len(hashes) == len({w.lower() for w in words})


def test_case_and_punctuation_do_not_count() -> None:
    assert fingerprint("Breaking NEWS: the Fed, again.") == fingerprint("breaking news the fed again")


def test_shingles_keep_word_order_and_short_pages() -> None:
    assert fingerprint("one two three four", shingle=2) != fingerprint("three four one two", shingle=2)
    assert fingerprint("one two three four") == fingerprint("three four one two")
    # Fewer words than a shingle: the page is one feature, not nothing.
    assert fingerprint("alone", shingle=3) is not None
    assert fingerprint("alone", shingle=3) != fingerprint("apart", shingle=3)


def test_a_page_without_words_has_no_fingerprint() -> None:
    assert fingerprint("") is None
    assert fingerprint(" -- ... !! ") is None
    assert SimhashDetector().featurize(PageText("", "a title")) is None


def test_fingerprints_do_not_depend_on_the_process() -> None:
    texts = ["Hello world, hello again.", "Ünïcödé wörds and 数字 123", "a " * 50 + "b"]
    here = [fingerprint(t) for t in texts]
    program = ("import json, sys; from workbench.detect.simhash.simhash import fingerprint; "
               "print(json.dumps([fingerprint(t) for t in json.loads(sys.argv[1])]))")
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", program, json.dumps(texts)], cwd=REPO, env=env,
                             capture_output=True, text=True, check=True)
        assert json.loads(out.stdout) == here


def test_pages_of_one_story_have_closer_fingerprints_than_other_stories() -> None:
    root = shared_path("goldset-dev")
    clusters = ["Adobe", "Brandy", "Folic", "Gum"]
    fps = {name: [fingerprint(t.text) for t in read_texts(root / name, workers=1).texts] for name in clusters}
    within = [(x ^ y).bit_count() for name in clusters for x, y in combinations(fps[name], 2)]
    between = [(x ^ y).bit_count() for p, q in combinations(clusters, 2) for x in fps[p] for y in fps[q]]
    assert within and between
    # Most pages of a story are closer to each other than any two pages of different stories.
    assert float(np.median(within)) < min(between)


# ---------------------------------------------------------------- the permuted tables


def test_k3_is_the_papers_layout() -> None:
    assert [b.width for b in blocks_of(3)] == [13, 13, 13, 13, 12]
    tables = tables_of(3)
    assert len(tables) == 10
    assert sorted({t.key_bits for t in tables}) == [25, 26]


@pytest.mark.parametrize("k", range(MAX_TABLE_K + 1))
def test_blocks_cover_the_64_bits_once(k: int) -> None:
    blocks = blocks_of(k)
    assert len(blocks) == k + 2
    assert len(tables_of(k)) == (k + 2) * (k + 1) // 2
    covered = 0
    for block in blocks:
        bits = block.mask << block.shift
        assert covered & bits == 0
        covered |= bits
    assert covered == MASK


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, MASK), min_size=1, max_size=20), st.integers(0, MAX_TABLE_K))
def test_a_tables_key_is_the_leading_bits_of_its_permutation(fps: list[int], k: int) -> None:
    array = np.array(fps, dtype=np.uint64)
    for table in tables_of(k):
        permuted = simhash_index.permute(array, table)
        # A permutation of bits: as many ones as before.
        assert np.bitwise_count(permuted).tolist() == [fp.bit_count() for fp in fps]
        leading = (permuted >> np.uint64(64 - table.key_bits)).tolist()
        assert leading == [table.key_of(fp) for fp in fps]


@pytest.mark.parametrize("method", ["tables", "all", "auto"])
@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 6, 8, 10])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_batch_pairs_equal_comparing_all_fingerprints(method: str, k: int, data: st.DataObject) -> None:
    fps = data.draw(near_fingerprints(k))
    result = pairs_within(np.array(fps, dtype=np.uint64), k, method=method)
    assert found_pairs(result) == brute_pairs(fps, k)
    assert (result.a < result.b).all()
    assert list(zip(result.a, result.b, strict=True)) == sorted(zip(result.a, result.b, strict=True))


@settings(max_examples=10, deadline=None)
@given(near_fingerprints(14), st.integers(11, 64))
def test_large_k_compares_every_pair(fps: list[int], k: int) -> None:
    assert found_pairs(pairs_within(np.array(fps, dtype=np.uint64), k)) == brute_pairs(fps, k)


def test_batch_pairs_hold_across_chunks_and_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    fps = rng.integers(0, MASK, 400, dtype=np.uint64, endpoint=True)
    flips = np.uint64(1) << rng.integers(0, 64, 300).astype(np.uint64)
    fps = np.concatenate([fps, fps[:300] ^ flips, fps[:50], np.repeat(fps[:1], 20)])
    expected = brute_pairs(fps.tolist(), 3)
    # Tiny chunks and tasks: every boundary between steps is crossed many times.
    monkeypatch.setattr(simhash_loops, "_TASK", 5)
    for method in ("tables", "all"):
        assert found_pairs(pairs_within(fps, 3, method=method)) == expected


def test_identical_fingerprints_pair_once_at_distance_zero() -> None:
    fps = np.array([5, 5, 5, 9], dtype=np.uint64)
    result = pairs_within(fps, 0)
    assert found_pairs(result) == {(0, 1): 0, (0, 2): 0, (1, 2): 0}


def test_crowds_of_equal_fingerprints_are_compared_once_each() -> None:
    # 80 copies share every table's key: the tables would compare each pair 10 times,
    # so every pair is compared once instead; the pairs are the same either way.
    fps = [3] * 80 + [3 ^ 0b1011, 1 << 40, MASK]
    result = pairs_within(np.array(fps, dtype=np.uint64), 3)
    assert found_pairs(result) == brute_pairs(fps, 3)
    assert result.candidates <= len(fps) * (len(fps) - 1) // 2


def test_no_fingerprints_or_one_give_no_pairs() -> None:
    for fps in ([], [7]):
        assert len(pairs_within(np.array(fps, dtype=np.uint64), 3)) == 0


# ---------------------------------------------------------------- the stream


@pytest.mark.parametrize("k", [0, 3, 5, 12])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_stream_finds_the_batch_pairs(k: int, data: st.DataObject) -> None:
    fps = data.draw(near_fingerprints(k))
    stream = SimhashStream(k)
    streamed: dict[tuple[int, int], int] = {}
    for new_id, fp in enumerate(fps):
        answer = stream.add(fp)
        assert [earlier for earlier, _ in answer] == sorted({earlier for earlier, _ in answer})
        streamed.update({(earlier, new_id): d for earlier, d in answer})
    assert len(stream) == len(fps)
    assert streamed == found_pairs(pairs_within(np.array(fps, dtype=np.uint64), k))


def test_stream_takes_numpy_fingerprints_and_refuses_others() -> None:
    stream = SimhashStream(3)
    assert stream.add(np.uint64(MASK)) == []
    assert stream.add(MASK ^ 0b111) == [(0, 3)]
    with pytest.raises(ValueError, match="unsigned 64-bit"):
        stream.add(-1)
    with pytest.raises(ValueError, match="0 to 64"):
        SimhashStream(65)


# ---------------------------------------------------------------- the detector


def test_thresholds_are_the_similarities_of_distances_12_to_0() -> None:
    detector = SimhashDetector()
    thresholds = list(detector.thresholds())
    assert thresholds == sorted(thresholds)
    assert [distance_of(t) for t in thresholds] == list(range(12, -1, -1))
    assert distance_of(detector.default_threshold()) == 3
    assert distance_of(SimhashDetector(k=5).default_threshold()) == 5
    # Between two grid points the threshold allows the smaller distance only.
    assert distance_of(1 - 3.5 / 64) == 3
    # A grid point written with rounding noise (e.g. read back from a text field) is still that point.
    assert distance_of(1 - 3 / 64 + 1e-12) == 3
    assert distance_of(0.0) == BITS
    with pytest.raises(ValueError, match="between 0 and 1"):
        distance_of(1.5)


def test_detector_records_what_its_result_depends_on() -> None:
    detector = SimhashDetector(k=4, shingle=2)
    assert detector.name == "simhash" and detector.exact
    assert "Manku" in detector.label
    parameters = json.loads(json.dumps(detector.parameters()))
    assert parameters["k"] == 4 and parameters["bits"] == 64
    assert "2-word" in parameters["features"] and parameters["weights"] == "term frequency"
    with pytest.raises(ValueError, match="k is a number of bits"):
        SimhashDetector(k=-1)


@settings(max_examples=20, deadline=None)
@given(near_fingerprints(4), st.integers(0, 12), st.data())
def test_find_pairs_is_every_pair_at_or_above_the_threshold(fps: list[int], distance: int,
                                                            data: st.DataObject) -> None:
    # Pages without words (None) sit among the others; they pair with nothing.
    holes = data.draw(st.lists(st.integers(0, len(fps)), max_size=5))
    features: list[np.uint64 | None] = [np.uint64(fp) for fp in fps]
    for hole in sorted(holes, reverse=True):
        features.insert(hole, None)
    index = [i for i, f in enumerate(features) if f is not None]
    threshold = 1.0 - distance / 64
    result = SimhashDetector().find_pairs(pickle.loads(pickle.dumps(features)), threshold)
    expected = {(index[a], index[b]): d for (a, b), d in brute_pairs(fps, distance).items()}
    assert found_pairs(result) == expected
    assert (result.similarity >= threshold).all()


def test_find_pairs_reports_progress_and_stops_when_cancelled() -> None:
    features = [np.uint64(v) for v in np.random.default_rng(3).integers(0, MASK, 200, dtype=np.uint64,
                                                                       endpoint=True)]
    calls: list[tuple[str, int, int | None]] = []
    SimhashDetector().find_pairs(features, 1 - 3 / 64, lambda *call: calls.append(call))
    assert calls and {stage for stage, _, _ in calls} == {"match"}
    assert calls[-1][1] == calls[-1][2]

    def cancel(stage: str, done: int, total: int | None) -> None:
        raise Cancelled

    for threshold in (1 - 3 / 64, 0.5):  # the tables, and every pair compared
        with pytest.raises(Cancelled):
            SimhashDetector().find_pairs(features, threshold, cancel)


def test_featurize_gives_a_compact_fingerprint_that_pickles() -> None:
    detector = pickle.loads(pickle.dumps(SimhashDetector(k=3)))
    fp = detector.featurize(PageText("A page about simhash.\nIts second block.", "Title", "en"))
    assert isinstance(fp, np.uint64)
    assert pickle.loads(pickle.dumps(fp)) == fp
    assert int(fp) == fingerprint("A page about simhash. Its second block.")
