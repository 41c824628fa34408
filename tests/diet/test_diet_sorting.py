"""Algorithm 1 (agent-level sorting, seed 004 §4) on hand-made responses."""

import math

import numpy as np

from heuristics.diet import select_best_n, sort_key
from vcsched.sim.diet import Response


def names(rs):
    return [r.sed for r in rs]


def test_exec_time_first_smallest_wins():
    rs = [Response("a", 30.0, 0, 100.0), Response("b", 10.0, 5, 0.0), Response("c", 20.0, 1, 50.0)]
    assert names(select_best_n(rs, 3, np.random.default_rng(0))) == ["b", "c", "a"]


def test_tie_on_exec_time_broken_by_jobs_then_time_since_last_solve():
    rs = [Response("a", 10.0, 2, 100.0), Response("b", 10.0, 1, 1.0), Response("c", 10.0, 1, 9.0),
          Response("d", 10.0, 1, math.inf)]
    # fewest jobs (b, c, d), among them longest since last solve first (d: never solved)
    assert names(select_best_n(rs, 4, 0)) == ["d", "c", "b", "a"]


def test_missing_metric_falls_through_to_the_next_stage():
    rs = [Response("nojob", None, None, 500.0),   # only time since last solve: third stage
          Response("jobs", None, 0, None),        # no prediction: second stage
          Response("pred", 99.0, 9, 0.0),         # carries a prediction: first stage, however bad
          Response("none", None, None, None)]     # nothing: random stage, last
    assert names(select_best_n(rs, 4, 0)) == ["pred", "jobs", "nojob", "none"]


def test_nan_counts_as_missing():
    rs = [Response("nan", math.nan, 0, 1.0), Response("pred", 5.0, 3, 0.0)]
    assert names(select_best_n(rs, 2, 0)) == ["pred", "nan"]


def test_keeps_only_n_best():
    rs = [Response(f"s{k}", float(k), 0, 0.0) for k in range(10, 0, -1)]
    assert names(select_best_n(rs, 3, 0)) == ["s1", "s2", "s3"]
    assert select_best_n(rs, 0, 0) == []


def test_random_last_resort_is_seeded():
    rs = [Response(f"s{k}", None, None, None) for k in range(8)]
    a = names(select_best_n(rs, 8, np.random.default_rng(3)))
    b = names(select_best_n(rs, 8, np.random.default_rng(3)))
    assert a == b and sorted(a) == sorted(names(rs))
    orders = {tuple(names(select_best_n(rs, 8, np.random.default_rng(s)))) for s in range(10)}
    assert len(orders) > 1  # the tie really is broken at random


def test_sort_key_stage_and_direction():
    assert sort_key(Response("a", 1.0, 0, 0.0), 0.5)[0] == 0
    assert sort_key(Response("a", None, 0, 0.0), 0.5)[0] == 1
    assert sort_key(Response("a", None, None, 3.0), 0.5)[0] == 2
    assert sort_key(Response("a", None, None, None), 0.5)[0] == 3
    # larger time since last solve is better (smaller key)
    assert sort_key(Response("a", None, None, 10.0), 0.0) < sort_key(Response("b", None, None, 1.0), 0.0)
