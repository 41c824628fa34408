"""Algorithm 1 (agent-level sorting, seed 004 §4) on hand-made responses."""

import math

import numpy as np

from heuristics.diet import select_best_n, sort_key
from vcsched.sim.diet_policy import Response


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


def test_literal_reading_ranks_by_prediction_plus_queue_wait():
    # a: 10 + 30 = 40, b: 20 + 0 = 20, c: 10 + 5 = 15; jobs and last solve are not consulted
    rs = [Response("a", 10.0, 0, 1e9, queue_wait=30.0), Response("b", 20.0, 9, 0.0, queue_wait=0.0),
          Response("c", 10.0, 5, 0.0, queue_wait=5.0)]
    assert names(select_best_n(rs, 3, 0, reading="literal")) == ["c", "b", "a"]
    # the default reading ignores the queue wait: a and c tie on 10, a has fewer jobs
    assert names(select_best_n(rs, 3, 0)) == ["a", "c", "b"]


def test_literal_reading_breaks_ties_at_random_not_by_jobs():
    # equal predictions, very different job counts: under the literal reading the order is the
    # seeded random draw, i.e. the order of the draws u (one per response, in input order)
    rs = [Response(f"s{k}", 10.0, k, 0.0) for k in range(6)]
    draws = np.random.default_rng(5).random(6)
    expected = [f"s{k}" for k in np.argsort(draws, kind="stable")]
    assert names(select_best_n(rs, 6, np.random.default_rng(5), reading="literal")) == expected
    assert names(select_best_n(rs, 6, np.random.default_rng(5))) == [f"s{k}" for k in range(6)]


def test_unknown_reading_is_a_clear_error():
    import pytest

    from vcsched.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="literal"):
        select_best_n([Response("a", 1.0, 0, 0.0)], 1, 0, reading="exact")
