"""Dynamic optimisation and MPC on compiled models (see docs/optimal_control.md).

:class:`OptimalControl` declares a problem on any compiled system (controls, design parameters,
free end time, start, end and path conditions, Mayer and Lagrange objective) and solves it by
direct collocation of the compiler's index-1 system (Radau IIA or Gauss-Legendre points of any
degree) or by direct multiple shooting over CVODES/IDAS, with IPOPT; the result is a
:class:`OptimalControlResult` (a ``Solution``). :class:`MPC` is a receding-horizon controller
from the same problem.
"""

from .api import OptimalControl
from .mpc import MPC, ClosedLoop
from .replay import Verification
from .result import OptimalControlResult

__all__ = ["MPC", "ClosedLoop", "OptimalControl", "OptimalControlResult", "Verification"]
