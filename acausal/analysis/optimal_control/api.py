"""The public problem class: the declarations of :class:`.problem.Problem` and ``solve()``.

(``solve`` lives here, above the modules that transcribe and solve, so that the declarations
do not import what uses them.)
"""

from __future__ import annotations

from typing import Any

from .problem import Problem
from .result import OptimalControlResult
from .solve import solve_problem


class OptimalControl(Problem):
    __doc__ = Problem.__doc__

    def solve(self, elements: int = 20, degree: int = 3, scheme: str = "radau", *,
              method: str = "collocation", mesh: Any = None, guess: Any = None,
              refine: float | None = None, max_refinements: int = 5,
              ipopt: dict | None = None, verbose: bool = False,
              verify: bool = False) -> OptimalControlResult:
        """Transcribe and solve; returns an :class:`OptimalControlResult`.

        ``elements``, ``degree``, ``scheme`` (``"radau"``, ``"legendre"``): the collocation
        mesh; ``mesh``: relative element lengths (any positive numbers, one per element);
        ``method``: ``"collocation"`` or ``"shooting"`` (direct multiple shooting over
        CVODES/IDAS, one interval per element); ``guess``: a ``Solution``, an earlier result,
        a dict ``name -> value or (times, values)``, or a callable feedback law
        ``law(t, values) -> {control: value}`` simulated to make the guess; ``refine``: a
        tolerance on the estimated collocation error, elements whose error exceeds it are
        halved and the problem solved again (at most ``max_refinements`` times); ``ipopt``:
        IPOPT options; ``verify``: re-simulate with the optimal controls (see
        :meth:`OptimalControlResult.verify`), kept as ``res.verification``."""
        return solve_problem(self, elements=elements, degree=degree, scheme=scheme,
                             method=method, mesh=mesh, guess=guess, refine=refine,
                             max_refinements=max_refinements, ipopt=ipopt, verbose=verbose,
                             verify=verify)
