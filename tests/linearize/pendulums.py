"""The models the linearisation tests share (pytest runs with --import-mode=importlib, which does
not put test folders on sys.path: conftest.py adds this one)."""

from __future__ import annotations

from acausal import Component, Eq, Input, Parameter, Variable, der

#: gravity [m/s2], rod length [m], mass [kg] of the pendulums
G, L, M = 9.81, 0.7, 1.3


class CartesianPendulum(Component):
    """A point mass m on a rod of length L in Cartesian coordinates (an index-3 DAE, lam the
    rod's force per length): m x'' = -lam x + F, m y'' = -lam y - m g, x^2 + y^2 = L^2."""

    m = Parameter(M, unit="kg")
    length = Parameter(L, unit="m")
    g = Parameter(G, unit="m/s2")
    F = Input(0.0, unit="N")  # horizontal force on the mass
    x = Variable(start=0.1, fixed=True)
    y = Variable(start=-0.69)
    vx = Variable(start=0.0, fixed=True)
    vy = Variable()
    lam = Variable()

    def equations(self):
        return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                Eq(self.m * der(self.vx), -self.lam * self.x + self.F),
                Eq(self.m * der(self.vy), -self.lam * self.y - self.m * self.g),
                Eq(self.x**2 + self.y**2, self.length**2)]
