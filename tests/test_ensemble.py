"""Parameter sweeps: one compiled system, many parameter sets, local processes and Dask."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import (
    AcausalError,
    Component,
    Discrete,
    Eq,
    Parameter,
    ParameterError,
    Variable,
    When,
    assign,
    compile,
    connect,
    der,
    reinit,
)
from acausal.components.translational import Damper, Fixed, Mass, Spring
from acausal.run import ensemble as ensemble_module
from acausal.run.ensemble import (
    Ensemble,
    deserialize_system,
    parameter_grid,
    serialize_system,
    simulate_many,
)

# The models live in this test module, which worker processes cannot import (pytest imports it
# under its own name): the serialised system must not need the model classes.


class Oscillator(Component):
    wall = Fixed()
    spring = Spring(c=100.0)
    damper = Damper(d=2.0)
    mass = Mass(m=2.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.wall.flange, self.damper.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.damper.flange_b, self.mass.flange_a)]


class Ball(Component):
    e = Parameter(0.8, description="coefficient of restitution")
    h = Variable(start=1.0, fixed=True, unit="m")
    v = Variable(start=0.0, fixed=True, unit="m/s")
    bounces = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.h), self.v), Eq(der(self.v), -9.81)]

    def events(self):
        return [When(self.h < 0, reinit(self.v, -self.e * self.v),
                     assign(self.bounces, self.bounces + 1))]


SWEEP = [{"spring.c": 50.0, "mass.m": 1.0}, {"spring.c": 100.0, "mass.m": 3.0},
         {"spring.c": 200.0, "damper.d": 0.5}, {}]


@pytest.fixture(scope="module")
def oscillator():
    return compile(Oscillator())


def _same(a, b, names=("mass.s", "mass.v", "spring.f")) -> None:
    """Identical to the last bit (same compiled functions, same inputs)."""
    assert a.ok and b.ok, (a, b)
    assert a.params == b.params
    np.testing.assert_array_equal(a.solution.t, b.solution.t)
    for n in names:
        np.testing.assert_array_equal(a.solution[n], b.solution[n])


@pytest.fixture(scope="module")
def local_runs(oscillator):
    return simulate_many(oscillator, SWEEP, 2.0, dt=0.01, processes=2)


def test_sweep_in_local_processes_matches_direct_simulation(oscillator, local_runs):
    assert isinstance(local_runs, Ensemble) and len(local_runs) == 4 and local_runs.all_ok
    assert [r.index for r in local_runs] == [0, 1, 2, 3]
    assert [r.params for r in local_runs] == SWEEP
    for run in local_runs:
        direct = oscillator.simulate(2.0, dt=0.01, params=run.params)
        np.testing.assert_array_equal(run.solution["mass.s"], direct["mass.s"])
        assert run.solution.parameters["spring.c"] == run.params.get("spring.c", 100.0)
    finals = local_runs.final("mass.s")
    assert finals.shape == (4,) and len(set(finals.round(12))) == 4


def test_sweep_on_dask_cluster_matches_local_processes(oscillator, local_runs):
    distributed = pytest.importorskip(
        "dask.distributed", reason="dask is not installed: pip install dask distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        dask_runs = simulate_many(oscillator, SWEEP, 2.0, dt=0.01, client=client)
    assert len(dask_runs) == 4
    assert dask_runs.stats["where"] == "dask" and dask_runs.stats["in_workers"] == 4
    for a, b in zip(local_runs, dask_runs):
        _same(a, b)


def test_sweep_with_native_code_compiles_once(oscillator, tmp_path, monkeypatch, c_compiler):
    cache = tmp_path / "native"
    monkeypatch.setenv("ACAUSAL_CACHE_DIR", str(cache))
    at_start = []
    start_workers = ensemble_module._run_processes

    def spy(*args, **kwargs):
        at_start.append(sorted(cache.glob("acausal_*")))
        return start_workers(*args, **kwargs)

    monkeypatch.setattr(ensemble_module, "_run_processes", spy)
    runs = simulate_many(oscillator, SWEEP, 2.0, dt=0.01, processes=2, jit=True)
    assert runs.all_ok
    # compiled here before the workers started, so they load it from the cache
    built = at_start[0]
    assert built and sorted(cache.glob("acausal_*")) == built
    for run in runs:
        direct = oscillator.simulate(2.0, dt=0.01, params=run.params, jit=True)
        np.testing.assert_array_equal(run.solution["mass.s"], direct["mass.s"])
    assert sorted(cache.glob("acausal_*")) == built


def test_in_process_and_spawned_workers_agree(oscillator, local_runs):
    serial = simulate_many(oscillator, SWEEP, 2.0, dt=0.01, processes=0)
    spawned = simulate_many(oscillator, SWEEP[:2], 2.0, dt=0.01, processes=2,
                            mp_context="spawn")
    for a, b in zip(local_runs, serial):
        _same(a, b)
    for a, b in zip(local_runs, spawned):
        _same(a, b)


def test_failing_members_keep_their_parameters_and_the_others_run(oscillator):
    members = [{"mass.m": 1.0}, {"spring.cc": 5.0}, {"mass.m": 0.0}, "not a dict",
               {"mass.m": 3.0}]
    runs = simulate_many(oscillator, members, 1.0, n_points=51, processes=2)
    assert [r.ok for r in runs] == [True, False, False, False, True]
    assert isinstance(runs[1].error, ParameterError)
    assert "'spring.cc' is not a parameter" in str(runs[1].error)
    assert runs[2].params == {"mass.m": 0.0}
    assert isinstance(runs[2].error, AcausalError)  # m = 0: the integrator fails
    assert runs[2].solution is None
    assert "give a dict" in str(runs[3].error)
    assert runs[4].solution["mass.s"].shape == (51,)
    with pytest.raises(AcausalError, match="3 of 5 simulations failed"):
        runs.raise_on_failure()
    with pytest.raises(ParameterError):
        runs[1].unwrap()


def test_events_and_discrete_history_survive_the_trip():
    system = compile(Ball())
    runs = simulate_many(system, [{"e": 0.5}, {"e": 0.9}], 1.2, dt=0.005, processes=2)
    for run in runs:
        direct = system.simulate(1.2, dt=0.005, params=run.params)
        assert [t for t, _ in run.solution.events] == [t for t, _ in direct.events]
        np.testing.assert_array_equal(run.solution["bounces"], direct["bounces"])
        np.testing.assert_array_equal(run.solution["h"], direct["h"])
    assert runs[0].solution["bounces"][-1] > runs[1].solution["bounces"][-1]


def test_model_instance_is_compiled_once_and_options_are_checked():
    runs = simulate_many(Oscillator(), [{"mass.m": 1.0}], 0.5, processes=0, n_points=11)
    assert runs[0].solution.t.size == 11
    with pytest.raises(AcausalError, match="has no option 'n_point'"):
        simulate_many(Oscillator(), [{}], 0.5, n_point=11)
    for bad in (-1, 1.5, "2"):
        with pytest.raises(AcausalError, match="give a positive number of worker processes"):
            simulate_many(Oscillator(), [{}], 0.5, processes=bad)


# -- where the members run (processes=None) and the progress display -----------------------------


def test_processes_pay_compares_the_rest_here_with_the_rest_on_new_workers():
    # 6 members of 10 ms: 60 ms here against 0.25 s + 3 x 10 ms on two forked workers
    assert not ensemble_module.processes_pay(0.01, 6, 2, 0.25)
    # 6 members of 1 s: 6 s here against 2 s + 3 x 1 s on two spawned workers
    assert ensemble_module.processes_pay(1.0, 6, 2, 2.0)
    # the break-even point: s + m ceil(k/w) = m k  <=>  m = s / (k - ceil(k/w)) = 2 / 3 s
    assert not ensemble_module.processes_pay(2.0 / 3.0, 6, 2, 2.0)
    assert ensemble_module.processes_pay(2.0 / 3.0 + 1e-9, 6, 2, 2.0)
    # nothing runs in parallel with one worker or one member left
    assert not ensemble_module.processes_pay(100.0, 6, 1, 0.0)
    assert not ensemble_module.processes_pay(100.0, 1, 4, 0.0)


def test_small_members_run_in_this_process_and_say_why(oscillator, local_runs, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started for members of milliseconds")

    monkeypatch.setattr(ensemble_module, "_run_processes", no_pool)
    oscillator.simulate(2.0, dt=0.01)  # one-time set-up done, so members are timed warm
    runs = simulate_many(oscillator, SWEEP, 2.0, dt=0.01)
    stats = runs.stats
    assert stats["where"] == "this process" and stats["in_process"] == 4
    assert stats["in_workers"] == 0 and stats["workers"] == 0
    # the estimates compared, and the verdict they give
    assert stats["worker_start_s"] == ensemble_module.WORKER_START_S[stats["start_method"]]
    assert not ensemble_module.processes_pay(stats["member_s"], 2, 2, stats["worker_start_s"])
    assert "too little for worker processes" in stats["reason"]
    assert stats["failed"] == 0 and stats["elapsed_s"] > 0
    for a, b in zip(local_runs, runs):  # the same numbers as in worker processes
        _same(a, b)


def test_members_that_take_long_enough_go_to_worker_processes(oscillator, local_runs,
                                                              monkeypatch):
    """With workers that cost nothing to start, processes pay from the first member on: it runs
    here (it decides alone, FIRST_MEMBER_DECIDES_S = 0), the three others in a pool."""
    monkeypatch.setattr(ensemble_module, "WORKER_START_S",
                        dict.fromkeys(("fork", "spawn", "forkserver"), 0.0))
    monkeypatch.setattr(ensemble_module, "FIRST_MEMBER_DECIDES_S", 0.0)
    monkeypatch.setattr(ensemble_module.os, "cpu_count", lambda: 2)
    pooled = []
    start_workers = ensemble_module._run_processes

    def spy(system, todo, *args, **kwargs):
        pooled.append([r.index for r in todo])
        return start_workers(system, todo, *args, **kwargs)

    monkeypatch.setattr(ensemble_module, "_run_processes", spy)
    runs = simulate_many(oscillator, SWEEP, 2.0, dt=0.01)
    assert pooled == [[1, 2, 3]]
    stats = runs.stats
    assert stats["where"] == "this process, then worker processes"
    assert (stats["in_process"], stats["in_workers"], stats["workers"]) == (1, 3, 2)
    assert stats["reason"].startswith("1 in this process, then 3 in 2 worker processes")
    for a, b in zip(local_runs, runs):
        _same(a, b)


def test_progress_counts_members_done_and_failed_on_stderr(oscillator, capsys):
    members = [{"mass.m": 1.0}, {"spring.cc": 5.0}, {"mass.m": 0.0}, {"mass.m": 3.0}]
    simulate_many(oscillator, members, 0.5, n_points=11, processes=0, progress=True)
    err = capsys.readouterr().err
    final = err.split("\r")[-1]
    assert "simulate_many Oscillator" in final
    assert "4 / 4 done, 2 failed" in final and "in this process (processes=0)" in final
    # the count grew one member at a time (the bad name counted before any run)
    assert "1 / 4 done, 1 failed" in err


def test_progress_is_quiet_off_a_terminal_and_when_switched_off(oscillator, capsys):
    simulate_many(oscillator, SWEEP[:2], 0.5, n_points=11, processes=0)  # stderr not a tty
    simulate_many(oscillator, SWEEP[:2], 0.5, n_points=11, processes=0, progress=False)
    assert capsys.readouterr().err == ""


def test_progress_line_estimates_the_time_left_from_the_rate_so_far():
    from acausal.base.progress import CountProgress

    bar = CountProgress("sweep", 8, enabled=False)
    bar.update(2, 1)
    now = bar.start + 3.0  # 2 members in 3 s: 6 members left take about 9 s
    assert bar.line(now) == ("sweep [########......................] 2 / 8 done, 1 failed, "
                             "about 9.0 s left  (3.0 s)")
    bar.update(8, 1)
    assert bar.line(now).startswith("sweep [" + "#" * 30 + "] 8 / 8 done, 1 failed  (")


def test_parameter_grid_and_serialisation(oscillator):
    grid = parameter_grid({"spring.c": [1, 2], "mass.m": [3, 4, 5]})
    assert len(grid) == 6 and grid[0] == {"spring.c": 1, "mass.m": 3}
    assert grid[-1] == {"spring.c": 2, "mass.m": 5}
    copy = deserialize_system(serialize_system(oscillator))
    assert copy.state_names == oscillator.state_names
    a = copy.simulate(1.0, params={"spring.c": 30.0})
    b = oscillator.simulate(1.0, params={"spring.c": 30.0})
    np.testing.assert_array_equal(a["spring.f"], b["spring.f"])


def test_serialised_system_does_not_need_the_model_classes():
    """Workers (a remote Dask cluster, a notebook's spawned processes) do not have the user's
    model classes: the compiled system must pickle without them. A class defined inside a
    function cannot be pickled by reference, so any reference to the model tree fails here."""

    class Local(Component):  # parts and connections, as a user's model has them
        wall = Fixed()
        spring = Spring(c=100.0)
        mass = Mass(m=2.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

        def connections(self):
            return [connect(self.wall.flange, self.spring.flange_a),
                    connect(self.spring.flange_b, self.mass.flange_a)]

    system = compile(Local())
    copy = deserialize_system(serialize_system(system))
    np.testing.assert_array_equal(copy.simulate(1.0, params={"mass.m": 3.0})["mass.s"],
                                  system.simulate(1.0, params={"mass.m": 3.0})["mass.s"])
