"""Every registry is built on its name table (vcsched.names), every name of a table is registered, and the
command line's choices are the tables themselves (one spelling of each name outside the tests)."""

from __future__ import annotations

import argparse

import pytest

from vcsched import names
from vcsched.errors import InternalError
from vcsched.names import dfrs, diet, grid, moldable, references, timeshare, vc, vc_hetero, vector
from vcsched.registry import Registry


def registries():
    import heuristics.dfrs
    import heuristics.diet
    import heuristics.diet.refine
    import heuristics.grid
    import heuristics.grid.selection
    import heuristics.moldable
    import heuristics.timeshare.policies
    import heuristics.vc.adapt
    import heuristics.vector.methods

    return [
        (heuristics.diet.APPROACHES, diet.APPROACHES),
        (heuristics.diet.refine.REFINE, diet.REFINE),
        (heuristics.grid.META_SCHEDULERS, grid.META_SCHEDULERS),
        (heuristics.grid.selection.HEURISTICS, grid.HEURISTICS),
        (heuristics.moldable.REGISTRY, moldable.HEURISTICS),
        (heuristics.timeshare.policies.REGISTRY, timeshare.HEURISTICS),
        (heuristics.vc.adapt.ADAPT_POLICIES, vc.ADAPT_POLICIES),
        (heuristics.dfrs.POLICIES, dfrs.POLICIES),
        (heuristics.vector.methods.HEURISTICS, vector.HEURISTICS),
    ]


def test_every_registry_holds_exactly_its_table():
    for registry, table in registries():
        assert registry.unregistered() == [], registry.kind
        assert sorted(registry.names()) == sorted(table), registry.kind


def test_a_name_outside_the_table_is_refused_at_registration():
    reg = Registry("thing", ("a", "b"))
    reg.register("a")(len)
    with pytest.raises(InternalError, match="'c' is not in its name table"):
        reg.register("c")(len)
    assert reg.unregistered() == ["b"]


def test_the_method_tables_and_other_registries_read_the_tables():
    from heuristics.grid.realloc import ALGORITHMS
    from heuristics.moldable.dual_approx import DUALS
    from heuristics.moldable.methods import METHODS as MOLDABLE
    from heuristics.vc.methods import METHODS as VC
    from lowerbounds.batch import METHODS as BATCH
    from lowerbounds.diet import METHODS as DIET
    from lowerbounds.moldable import BOUND_METHODS
    from lowerbounds.timeshare import METHODS as TIMESHARE
    from vcsched.formulations.moldable_milp import FORMULATIONS
    from vcsched.generators.moldable import KINDS
    from vcsched.scenarios.diet import EXPERIMENTS
    from vcsched.sim.batch import BATCH_POLICIES

    assert BATCH is DIET is TIMESHARE is references.BOUND_METHODS
    assert BOUND_METHODS is moldable.BOUND_METHODS
    assert DUALS is moldable.DUALS and FORMULATIONS is moldable.FORMULATIONS and KINDS is moldable.KINDS
    assert ALGORITHMS is grid.REALLOC_ALGORITHMS
    assert set(MOLDABLE.names()) == {*moldable.HEURISTICS, moldable.EXACT}
    assert set(vc.HEURISTICS) | {f"adapt-{p}" for p in vc.ADAPT_METHODS} <= set(VC.names())
    assert set(vc.ADAPT_METHODS) < set(vc.ADAPT_POLICIES)
    assert tuple(BATCH_POLICIES) == grid.POLICIES
    assert tuple(EXPERIMENTS) == diet.EXPERIMENTS


def test_the_simulators_rule_variants_read_the_tables():
    from heuristics.grid.realloc import CURRENT_ECTS, QUEUE_ORDERS
    from heuristics.timeshare.policies import MCT
    from vcsched.generators.timeshare import INTERARRIVAL_LAWS
    from vcsched.sim.cbf import CBFCluster
    from vcsched.sim.output import JOBS_LAYOUTS
    from vcsched.sim.timeshare import LOAD_SENSORS, OVERFLOWS

    assert QUEUE_ORDERS is grid.QUEUE_ORDERS and CURRENT_ECTS is grid.CURRENT_ECTS
    assert CBFCluster.REPLAN_RULES is grid.CBF_REPLAN_RULES and JOBS_LAYOUTS is grid.JOBS_LAYOUTS
    assert LOAD_SENSORS is timeshare.LOAD_SENSORS and OVERFLOWS is timeshare.OVERFLOWS
    assert MCT.COMPLETIONS is timeshare.MCT_COMPLETIONS and INTERARRIVAL_LAWS is timeshare.INTERARRIVAL_LAWS


def test_the_other_families_option_variants_read_the_tables():
    from heuristics.dfrs.cpu import CPU_TARGETS
    from heuristics.diet.sorting import READINGS
    from vcsched.formulations.vc_milp import BUDGET_MODES
    from vcsched.generators.vc_hetero import PRESETS

    assert READINGS is diet.SORTING_READINGS and CPU_TARGETS is dfrs.CPU_TARGETS
    assert BUDGET_MODES is vc.BUDGET_MODES and PRESETS is vc_hetero.PRESETS


def test_the_references_metrics_are_the_tables():
    from lowerbounds.diet import METRICS as DIET_METRICS
    from lowerbounds.timeshare import METRICS as TIMESHARE_METRICS

    assert DIET_METRICS is diet.METRICS and TIMESHARE_METRICS is timeshare.METRICS
    from lowerbounds.batch.instance import METRICS as BATCH_METRICS

    assert BATCH_METRICS is grid.REFERENCE_METRICS


def _choices(argv: list[str], option: str) -> tuple:
    """The choices of ``option`` of the sub-command ``argv`` of ``vcsched``."""
    from vcsched.cli import build_parser

    parser = build_parser()
    for word in argv:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    action = next(a for a in parser._actions if option in a.option_strings)
    return tuple(action.choices)


@pytest.mark.parametrize("argv, option, table", [
    (["grid", "simulate"], "--policy", grid.POLICIES),
    (["grid", "simulate"], "--realloc", grid.REALLOC_ALGORITHMS),
    (["grid", "simulate"], "--heuristic", grid.HEURISTICS),
    (["grid", "bound"], "--method", references.BOUND_METHODS),
    (["timeshare", "bound"], "--method", references.BOUND_METHODS),
    (["diet", "bound"], "--method", references.BOUND_METHODS),
    (["diet", "simulate"], "--refine", diet.REFINE),
    (["moldable", "bound"], "--method", moldable.BOUND_METHODS),
    (["grid", "simulate"], "--queue-order", grid.QUEUE_ORDERS),
    (["grid", "simulate"], "--current-ect", grid.CURRENT_ECTS),
    (["grid", "simulate"], "--cbf-replan", grid.CBF_REPLAN_RULES),
    (["grid", "simulate"], "--jobs-layout", grid.JOBS_LAYOUTS),
    (["timeshare", "simulate"], "--load-sensor", timeshare.LOAD_SENSORS),
    (["timeshare", "simulate"], "--mct-completion", timeshare.MCT_COMPLETIONS),
    (["timeshare", "simulate"], "--interarrival", timeshare.INTERARRIVAL_LAWS),
    (["timeshare", "simulate"], "--memory", timeshare.MEMORY_MODELS),
    (["timeshare", "bound"], "--overflow", timeshare.OVERFLOWS),
    (["diet", "simulate"], "--sorting", diet.SORTING_READINGS),
    (["dfrs", "simulate"], "--cpu-target", dfrs.CPU_TARGETS),
    (["vc", "solve"], "--budget-mode", vc.BUDGET_MODES),
    (["vc", "adapt"], "--budget-mode", vc.BUDGET_MODES),
    (["vc", "generate"], "--preset", vc_hetero.PRESETS),
])
def test_the_command_line_choices_are_the_tables(argv, option, table):
    assert _choices(argv, option) == tuple(table)


def test_the_tables_import_nothing_heavy():
    import subprocess
    import sys

    code = ("import sys; import vcsched.names.vc, vcsched.names.moldable, vcsched.names.grid, "
            "vcsched.names.timeshare, vcsched.names.diet, vcsched.names.references; "
            "print(sorted(m for m in ('numpy', 'pandas', 'numba', 'pulp') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert names.__doc__


def test_dfrs_and_vector_packing_choices_read_their_tables():
    from heuristics.dfrs import POLICIES
    from heuristics.vector.methods import METHODS
    from vcsched.cli import build_parser

    assert list(POLICIES.names()) == list(dfrs.POLICIES)  # registry order = the table's
    from benchmarks.experiments import dfrs as dfrs_experiment

    assert dfrs_experiment.POLICIES is dfrs.POLICIES
    assert METHODS == list(vector.METHODS)
    parser = build_parser()
    simulate = parser.parse_args(["dfrs", "simulate", "--trace", "x.swf"])
    assert simulate.policy.split(",") == list(dfrs.DEFAULT_POLICIES) and "fcfs" not in simulate.policy


def _parsers(parser):
    """Every parser of the command line, sub-commands included."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def test_every_default_is_one_of_its_choices():
    """argparse checks a given value against ``choices`` but never the default: a default missing from its
    table would reach the library unchecked."""
    from vcsched.cli import build_parser

    options = [(parser.prog, action) for parser in _parsers(build_parser()) for action in parser._actions
               if action.choices is not None and not isinstance(action, argparse._SubParsersAction)]
    assert len(options) > 30
    wrong = [(prog, action.dest, action.default) for prog, action in options
             if action.default is not None and action.default not in action.choices]
    assert wrong == []

