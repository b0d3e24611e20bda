"""Learning ANDD's feature weights from ordered pairs (the paper's Sec. 3.1).

The paper learns "preference orderings": given pairs of page pairs (x_a, x_b) where x_a
is a near duplicate and x_b is not, the loss is Eq. 4,

    L(lambda) = sum_k log(1 + exp(-gamma * (cos(x_a) - cos(x_b)))),

minimised with L-BFGS. We do the same; ``gamma`` (1 in the paper) sharpens the loss:
a difference of cosines lies in [-1, 1], where log(1 + exp(-d)) is nearly a straight
line, so with gamma = 1 every pair pulls about equally and the loss only moves the
averages apart; a larger gamma lets pairs already in the right order rest and spends
the weights on the ones in the wrong order. The paper's ridge term (alpha/2 |lambda|^2)
is left out: cosine does not change when all weights are scaled, so the term could only
shrink the weights' length, never their direction, which is all the model is.

Everything is numpy: the gradient of a cosine of weighted vectors is pushed down to the
entries of the vectors, so one evaluation costs a few passes over the pairs' shared
entries and one product of the feature matrix with a vector. L-BFGS (Nocedal and Wright,
Numerical Optimization, Algorithm 7.4 with a backtracking Armijo line search) is a few
lines for eight weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.detect.andd.features import GramMatrix

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]


@dataclass(slots=True)
class PairEntries:
    """Page pairs (p, q) and the entries of the matrix they share (same k-gram).

    Pair k's shared k-grams are ``ep[start[k]:start[k + 1]]`` (their entries in p's row)
    and ``eq[...]`` (in q's row).
    """

    p: np.ndarray  # int64 (pairs,)
    q: np.ndarray
    start: np.ndarray  # int64 (pairs + 1,)
    ep: np.ndarray  # int64 (shared,)
    eq: np.ndarray


@njit(cache=True, nogil=True)
def _merge(ptr: np.ndarray, col: np.ndarray, a: int, b: int, ep: np.ndarray, eq: np.ndarray,
           at: int) -> int:
    """Write the entries rows a and b share from ``at`` on (``ep`` None-like when empty:
    only counted); return how many there are."""
    i, i_end = ptr[a], ptr[a + 1]
    j, j_end = ptr[b], ptr[b + 1]
    found = 0
    while i < i_end and j < j_end:
        if col[i] == col[j]:
            if len(ep):
                ep[at + found] = i
                eq[at + found] = j
            found += 1
            i += 1
            j += 1
        elif col[i] < col[j]:
            i += 1
        else:
            j += 1
    return found


@njit(cache=True, nogil=True)
def _shared(ptr: np.ndarray, col: np.ndarray, p: np.ndarray, q: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    none = np.empty(0, dtype=np.int64)
    start = np.zeros(len(p) + 1, dtype=np.int64)
    for k in range(len(p)):
        start[k + 1] = start[k] + _merge(ptr, col, p[k], q[k], none, none, 0)
    ep = np.empty(start[-1], dtype=np.int64)
    eq = np.empty(start[-1], dtype=np.int64)
    for k in range(len(p)):
        _merge(ptr, col, p[k], q[k], ep, eq, start[k])
    return start, ep, eq


@njit(cache=True, nogil=True)
def _dots(start: np.ndarray, ep: np.ndarray, eq: np.ndarray, w: np.ndarray) -> np.ndarray:
    out = np.zeros(len(start) - 1)
    for k in range(len(start) - 1):
        total = 0.0
        for s in range(start[k], start[k + 1]):
            total += w[ep[s]] * w[eq[s]]
        out[k] = total
    return out


@njit(cache=True, nogil=True)
def _spread(start: np.ndarray, ep: np.ndarray, eq: np.ndarray, w: np.ndarray, h: np.ndarray,
            coef: np.ndarray) -> None:
    """coef[e] += h[k] * (the other page's weight) for every shared entry e of pair k."""
    for k in range(len(start) - 1):
        hk = h[k]
        if hk == 0.0:
            continue
        for s in range(start[k], start[k + 1]):
            coef[ep[s]] += hk * w[eq[s]]
            coef[eq[s]] += hk * w[ep[s]]


def pair_entries(matrix: GramMatrix, p: np.ndarray, q: np.ndarray) -> PairEntries:
    """The shared entries of every pair (rows ascend by column, so each is one merge)."""
    p = np.ascontiguousarray(p, dtype=np.int64)
    q = np.ascontiguousarray(q, dtype=np.int64)
    start, ep, eq = _shared(matrix.ptr, matrix.col, p, q)
    return PairEntries(p, q, start, ep, eq)


class PreferenceLoss:
    """Eq. 4 over preferences (better[k], worse[k]): indexes into the pairs."""

    def __init__(self, matrix: GramMatrix, pairs: PairEntries, better: np.ndarray,
                 worse: np.ndarray, gamma: float) -> None:
        self.values = matrix.values
        self.rows = matrix.rows()
        self.n = matrix.n
        self.pairs = pairs
        self.better = better
        self.worse = worse
        self.gamma = gamma

    def cosines(self, weights: np.ndarray) -> np.ndarray:
        return self._forward(weights)[0]

    def _forward(self, weights: np.ndarray) -> tuple[np.ndarray, ...]:
        z = self.values @ weights
        w = np.maximum(z, 0.0)
        n2 = np.bincount(self.rows, weights=w * w, minlength=self.n)
        pr = self.pairs
        dot = _dots(pr.start, pr.ep, pr.eq, w)
        norm = np.sqrt(n2[pr.p] * n2[pr.q])
        cos = np.divide(dot, norm, out=np.zeros_like(dot), where=norm > 0)
        return cos, w, z > 0, n2, norm

    def __call__(self, weights: np.ndarray) -> tuple[float, np.ndarray]:
        """The mean loss and its gradient."""
        cos, w, active, n2, norm = self._forward(weights)
        pr = self.pairs
        margin = self.gamma * (cos[self.better] - cos[self.worse])
        loss = float(np.mean(np.logaddexp(0.0, -margin)))
        # d loss / d margin = -sigmoid(-margin); then / d cosine of each pair.
        slope = -self.gamma * 0.5 * (1.0 - np.tanh(margin / 2)) / len(margin)
        g = (np.bincount(self.better, weights=slope, minlength=len(pr.p))
             - np.bincount(self.worse, weights=slope, minlength=len(pr.p)))
        # cos = dot / norm, norm = |p| |q|: d cos = d dot / norm
        #   - cos (d|p|^2 / 2|p|^2 + d|q|^2 / 2|q|^2), where d dot = sum over the shared
        # k-grams of w_q dw_p + w_p dw_q and d|p|^2 = 2 sum over p's k-grams of w dw.
        # coef[e] gathers what multiplies dw of entry e.
        h = np.divide(g, norm, out=np.zeros_like(g), where=norm > 0)
        coef = np.zeros(len(w))
        _spread(pr.start, pr.ep, pr.eq, w, h, coef)
        gc = g * cos
        per_page = (np.bincount(pr.p, weights=gc, minlength=self.n)
                    + np.bincount(pr.q, weights=gc, minlength=self.n))
        per_page = np.divide(per_page, n2, out=np.zeros_like(per_page), where=n2 > 0)
        coef -= per_page[self.rows] * w
        coef *= active  # dw / dz is 0 where the weight was cut to zero
        return loss, self.values.T @ coef


@dataclass(frozen=True, slots=True)
class Minimum:
    x: np.ndarray
    value: float
    iterations: int
    evaluations: int


def lbfgs(objective: Objective, x0: np.ndarray, *, iterations: int = 100, memory: int = 8,
          tolerance: float = 1e-7) -> Minimum:
    """Minimise a smooth function given its value and gradient."""
    x = np.asarray(x0, dtype=np.float64).copy()
    value, grad = objective(x)
    evaluations = 1
    s_hist: list[np.ndarray] = []
    y_hist: list[np.ndarray] = []
    it = 0
    for it in range(1, iterations + 1):  # noqa: B007 - the count is reported
        direction = -_two_loop(grad, s_hist, y_hist)
        slope = float(grad @ direction)
        if slope >= 0:  # not a descent direction: start the memory again
            s_hist.clear()
            y_hist.clear()
            direction = -grad
            slope = float(grad @ direction)
        if slope > -1e-16:
            break  # gradient vanished
        # The first step, without curvature yet, is scaled to move x by about 1 % of it.
        step = 1.0 if s_hist else 0.01 * max(1.0, float(np.linalg.norm(x))) / float(
            np.linalg.norm(direction))
        for _ in range(40):
            new_x = x + step * direction
            new_value, new_grad = objective(new_x)
            evaluations += 1
            if new_value <= value + 1e-4 * step * slope:
                break
            step *= 0.5
        else:
            break  # no decrease along the direction: as low as it goes
        s, y = new_x - x, new_grad - grad
        if float(s @ y) > 1e-12:
            s_hist.append(s)
            y_hist.append(y)
            if len(s_hist) > memory:
                s_hist.pop(0)
                y_hist.pop(0)
        done = abs(value - new_value) <= tolerance * max(1.0, abs(value))
        x, value, grad = new_x, new_value, new_grad
        if done:
            break
    return Minimum(x, value, it, evaluations)


def _two_loop(grad: np.ndarray, s_hist: list[np.ndarray], y_hist: list[np.ndarray]) -> np.ndarray:
    """The inverse Hessian estimate times the gradient (L-BFGS's two-loop recursion)."""
    q = grad.copy()
    alphas = []
    for s, y in zip(reversed(s_hist), reversed(y_hist), strict=True):
        rho = 1.0 / float(y @ s)
        alpha = rho * float(s @ q)
        q -= alpha * y
        alphas.append((rho, alpha))
    if s_hist:
        q *= float(s_hist[-1] @ y_hist[-1]) / float(y_hist[-1] @ y_hist[-1])
    for (s, y), (rho, alpha) in zip(zip(s_hist, y_hist, strict=True), reversed(alphas),
                                    strict=True):
        beta = rho * float(y @ q)
        q += (alpha - beta) * s
    return q
