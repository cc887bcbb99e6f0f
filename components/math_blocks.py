"""Mathematical signal blocks (after ``Modelica.Blocks.Math`` of the Modelica Standard Library
(MSL) 4.0): :class:`Gain`, :class:`Feedback`, :class:`Add`, :class:`Add3`, :class:`Product`;
and the point-to-point motion source :class:`KinematicPTP2` (MSL ``Blocks.Sources.KinematicPTP2``).

Signals are the acausal connectors of :mod:`acausal.components.blocks` (``RealInput``,
``RealOutput``, value ``<connector>.u``). Gains and weights carry unit "1" here (MSL writes
them unitless too, with a unit modifier where needed: the robot's ``convert1(k(unit="V/A"))``).
"""

from __future__ import annotations

import math

from acausal import Component, Eq, Parameter, Variable, event_if, time
from acausal.errors import ParameterError

from .blocks import RealInput, RealOutput

#: MSL KinematicPTP2's ``eps = 10*Modelica.Constants.eps``.
PTP_EPS = 10 * 2.220446049250313e-16


class Gain(Component):
    """Output the input multiplied by a gain (MSL ``Blocks.Math.Gain``): ``y = k u``.

    Source: MSL 4.0 ``Modelica/Blocks/Math.mo`` (block ``Gain``).
    """

    k = Parameter(1.0, unit="1", description="gain value multiplied with the input signal")
    u = RealInput()
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.k * self.u.u)]


class Feedback(Component):
    """Difference of a command and a feedback signal (MSL ``Blocks.Math.Feedback``):
    ``y = u1 - u2``.

    Source: MSL 4.0 ``Modelica/Blocks/Math.mo`` (block ``Feedback``).
    """

    u1 = RealInput()
    u2 = RealInput()
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.u1.u - self.u2.u)]


class Add(Component):
    """Weighted sum of two inputs (MSL ``Blocks.Math.Add``): ``y = k1 u1 + k2 u2``.

    Source: MSL 4.0 ``Modelica/Blocks/Math.mo`` (block ``Add``).
    """

    k1 = Parameter(1.0, unit="1", description="gain of input signal 1")
    k2 = Parameter(1.0, unit="1", description="gain of input signal 2")
    u1 = RealInput()
    u2 = RealInput()
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.k1 * self.u1.u + self.k2 * self.u2.u)]


class Add3(Component):
    """Weighted sum of three inputs (MSL ``Blocks.Math.Add3``):
    ``y = k1 u1 + k2 u2 + k3 u3``.

    Source: MSL 4.0 ``Modelica/Blocks/Math.mo`` (block ``Add3``).
    """

    k1 = Parameter(1.0, unit="1", description="gain of input signal 1")
    k2 = Parameter(1.0, unit="1", description="gain of input signal 2")
    k3 = Parameter(1.0, unit="1", description="gain of input signal 3")
    u1 = RealInput()
    u2 = RealInput()
    u3 = RealInput()
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.k1 * self.u1.u + self.k2 * self.u2.u + self.k3 * self.u3.u)]


class Product(Component):
    """Product of two inputs (MSL ``Blocks.Math.Product``): ``y = u1 u2``.

    Source: MSL 4.0 ``Modelica/Blocks/Math.mo`` (block ``Product``).
    """

    u1 = RealInput()
    u2 = RealInput()
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.u1.u * self.u2.u)]


def ptp_profile(q_begin, q_end, qd_max, qdd_max, start_time=0.0) -> dict:
    """The switching times and levels of MSL ``KinematicPTP2`` (all axes move on one normalised
    path ``s`` from 0 to 1, as fast as the slowest axis allows).

    Returns a dict with ``deltaq`` (list), ``sd_max``, ``sdd_max``, ``Ta1``, ``Ta2``, ``Tv``,
    ``Te``, ``noWphase``, ``s1``, ``s2``, ``s3``, ``sd_max2`` and ``endTime`` (MSL's names; all
    times relative to ``start_time`` except ``endTime``). Scalars are broadcast to the longest
    list, as MSL's ``p_q_begin`` etc.
    """
    lists = [list(v) if isinstance(v, (list, tuple)) else [v]
             for v in (q_begin, q_end, qd_max, qdd_max)]
    n = max(len(v) for v in lists)
    for name, v in zip(("q_begin", "q_end", "qd_max", "qdd_max"), lists):
        if len(v) not in (1, n):
            raise ParameterError(f"KinematicPTP2: {name} has {len(v)} values; give 1 or {n}.")
    qb, qe, qdm, qddm = ([float(x[0])] * n if len(x) == 1 else [float(y) for y in x]
                         for x in lists)
    if min(qdm) <= 0 or min(qddm) <= 0:
        raise ParameterError("KinematicPTP2: qd_max and qdd_max must be > 0.")
    deltaq = [e - b for b, e in zip(qb, qe)]
    sd_max_inv = max(abs(d / v) for d, v in zip(deltaq, qdm))
    sdd_max_inv = max(abs(d / a) for d, a in zip(deltaq, qddm))
    out = {"n": n, "q_begin": qb, "deltaq": deltaq}
    if sd_max_inv <= PTP_EPS or sdd_max_inv <= PTP_EPS:
        out.update(sd_max=0.0, sdd_max=0.0, Ta1=0.0, Ta2=0.0, Tv=0.0, Te=0.0, noWphase=False,
                   s1=0.0, s2=0.0, s3=0.0, sd_max2=0.0, endTime=float(start_time), moving=False)
        return out
    sd_max, sdd_max = 1 / sd_max_inv, 1 / sdd_max_inv
    ta1 = math.sqrt(1 / sdd_max)
    ta2 = sd_max / sdd_max
    no_w = ta2 >= ta1
    tv = ta1 if no_w else 1 / sd_max
    te = ta1 + ta1 if no_w else tv + ta2
    sd_max2 = sdd_max * ta1
    s1 = sdd_max * (ta1 * ta1 if no_w else ta2 * ta2) / 2
    s2 = s1 + (sd_max2 * (te - ta1) - (sdd_max / 2) * (te - ta1)**2 if no_w
               else sd_max * (tv - ta2))
    s3 = s2 + sd_max * (te - tv) - (sdd_max / 2) * (te - tv) * (te - tv)
    out.update(sd_max=sd_max, sdd_max=sdd_max, Ta1=ta1, Ta2=ta2, Tv=tv, Te=te, noWphase=no_w,
               s1=s1, s2=s2, s3=s3, sd_max2=sd_max2, endTime=te + float(start_time),
               moving=True)
    return out


def ptp_path(p: dict, t0: float, t):
    """``(s, sd, sdd)`` of MSL ``KinematicPTP2`` at time ``t`` (``sd = der(s)``,
    ``sdd = der(sd)``, written out), for the profile ``p`` of :func:`ptp_profile`: with
    ``event_if`` when ``t`` is a symbol (time events at the phase switches), as numbers when it
    is a number."""
    if not p["moving"]:
        return 0.0, 0.0, 0.0
    a = p["sdd_max"]
    if p["noWphase"]:
        ta1s, tes = p["Ta1"] + t0, p["Te"] + t0
        pieces = [(t0, (0.0, 0.0, 0.0)),
                  (ta1s, ((a / 2) * (t - t0)**2, a * (t - t0), a)),
                  (tes, (p["s1"] + p["sd_max2"] * (t - ta1s) - (a / 2) * (t - ta1s)**2,
                         p["sd_max2"] - a * (t - ta1s), -a)),
                  (None, (p["s2"], 0.0, 0.0))]
    else:
        ta2s, tvs, tes, v = p["Ta2"] + t0, p["Tv"] + t0, p["Te"] + t0, p["sd_max"]
        pieces = [(t0, (0.0, 0.0, 0.0)),
                  (ta2s, ((a / 2) * (t - t0)**2, a * (t - t0), a)),
                  (tvs, (p["s1"] + v * (t - ta2s), v, 0.0)),
                  (tes, (p["s2"] + v * (t - tvs) - (a / 2) * (t - tvs)**2,
                         v - a * (t - tvs), -a)),
                  (None, (p["s3"], 0.0, 0.0))]
    result = list(pieces[-1][1])
    for limit, values in reversed(pieces[:-1]):
        for k in range(3):
            if isinstance(t, (int, float)):
                result[k] = values[k] if t < limit else result[k]
            else:
                result[k] = event_if(t < limit, values[k], result[k])
    return tuple(result)


class KinematicPTP2(Component):
    """Move as fast as possible from ``q_begin`` to ``q_end`` within the limits ``qd_max`` and
    ``qdd_max``: outputs ``q``, ``qd = der(q)``, ``qdd = der(qd)`` (MSL
    ``Blocks.Sources.KinematicPTP2``).

    All axes follow one normalised path ``s(t)`` from 0 to 1, whose speed and acceleration are
    limited by the slowest axis (``deltaq = q_end - q_begin``)::

        sd_max = 1/max_i |deltaq_i/qd_max_i|;  sdd_max = 1/max_i |deltaq_i/qdd_max_i|
        Ta1 = sqrt(1/sdd_max);  Ta2 = sd_max/sdd_max;  noWphase = Ta2 >= Ta1
        Tv = Ta1 if noWphase else 1/sd_max;  Te = 2 Ta1 if noWphase else Tv + Ta2
        (times after startTime; the path accelerates with sdd_max until Ta2 (Ta1 without a
        constant-speed phase), moves at sd_max until Tv, brakes with -sdd_max until Te)
        q = q_begin + deltaq s;  qd = deltaq sd;  qdd = deltaq sdd   (s, sd, sdd: variables)
        endTime = startTime + Te

    MSL computes ``sd = der(s)`` and ``sdd = der(sd)`` by differentiating the ``if`` expression
    of ``s``; here the derivatives are written out (the same functions). The phase switches
    are time events (``event_if`` on ``time``), as MSL's ``if time < ...`` generates events.

    Parameters (structural: the switching times are computed when the model is built):
    ``q_begin``, ``q_end`` [unit of q], ``qd_max`` [unit of q per s], ``qdd_max`` [unit of q
    per s2] (lists; one value is used for every axis), ``startTime`` [s]. ``q``, ``qd``,
    ``qdd`` are lists of ``nout`` RealOutputs (MSL ``q[1]`` is ``q[0]`` here). MSL's Boolean
    output ``moving`` is not provided (acausal has no Boolean signals); :attr:`endTime` is a
    Python property (the number).

    Source: MSL 4.0 ``Modelica/Blocks/Sources.mo`` (block ``KinematicPTP2``).
    """

    q_begin = Parameter((0.0,), structural=True, unit="1", description="start position")
    q_end = Parameter((1.0,), structural=True, unit="1", description="end position")
    qd_max = Parameter((1.0,), structural=True, unit="1/s", description="maximum velocities "
                       "der(q) (> 0)")
    qdd_max = Parameter((1.0,), structural=True, unit="1/s2", description="maximum "
                        "accelerations der(qd) (> 0)")
    startTime = Parameter(0.0, structural=True, unit="s", description="time instant at which "
                          "the movement starts")
    s = Variable(unit="1", description="normalised path (0 at q_begin, 1 at q_end)")
    sd = Variable(unit="1/s", description="der(s)")
    sdd = Variable(unit="1/s2", description="der(sd)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        decl = self._class_declarations()
        values = {k: overrides.get(k, decl[k].default)
                  for k in ("q_begin", "q_end", "qd_max", "qdd_max", "startTime")}
        self._profile = ptp_profile(values["q_begin"], values["q_end"], values["qd_max"],
                                    values["qdd_max"], values["startTime"])
        self._t0 = float(values["startTime"])
        n = self._profile["n"]
        self.q = [RealOutput() for _ in range(n)]
        self.qd = [RealOutput() for _ in range(n)]
        self.qdd = [RealOutput() for _ in range(n)]

    @property
    def nout(self) -> int:
        """Number of output signals (MSL ``nout``)."""
        return self._profile["n"]

    @property
    def endTime(self) -> float:  # noqa: N802 - MSL's name
        """Time instant at which the movement stops [s] (MSL ``endTime``)."""
        return self._profile["endTime"]

    def reference(self, t: float) -> tuple[list[float], list[float], list[float]]:
        """``(q, qd, qdd)`` at the time ``t`` as numbers (for tests and plots)."""
        s, sd, sdd = ptp_path(self._profile, self._t0, float(t))
        p = self._profile
        return ([b + d * s for b, d in zip(p["q_begin"], p["deltaq"])],
                [d * sd for d in p["deltaq"]], [d * sdd for d in p["deltaq"]])

    def equations(self):
        p = self._profile
        s, sd, sdd = ptp_path(p, self._t0, time)
        eqs = [Eq(self.s, s), Eq(self.sd, sd), Eq(self.sdd, sdd)]
        for i in range(p["n"]):
            d = p["deltaq"][i]
            eqs += [Eq(self.q[i].u, p["q_begin"][i] + d * self.s),
                    Eq(self.qd[i].u, d * self.sd), Eq(self.qdd[i].u, d * self.sdd)]
        return eqs
