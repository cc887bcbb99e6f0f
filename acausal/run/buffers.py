"""CasADi functions evaluated into numpy buffers: at one point without conversions per call
(:class:`Buffered`, what the solver callbacks use), and at many points (the columns of its
inputs) without Python per point (:class:`Columns`).

``f.map(n)`` builds a new function for every count ``n`` (tens of milliseconds for a few thousand
points) and a call with numpy arrays converts every input and output through ``DM`` (element by
element, 0.1 s for a 21 x 105 000 matrix). :class:`Columns` maps the function once over a fixed
chunk of points, binds numpy buffers to it (:class:`Buffered`) and walks the points chunk by
chunk, so output points, polishing and observed variables cost the evaluation itself and a
copy.
"""

from __future__ import annotations

import casadi as ca
import numpy as np


class Buffered:
    """A CasADi Function evaluated into preallocated numpy arrays (no conversions per call).

    ``arg[name]`` and ``out[i]`` are the arrays the function reads and writes.
    """

    def __init__(self, f: ca.Function) -> None:
        self.function = f
        self.arg = {f.name_in(i): np.zeros(f.nnz_in(i)) for i in range(f.n_in())}
        self.out = [np.zeros(f.nnz_out(i)) for i in range(f.n_out())]
        #: the buffer's own evaluation (the solver callbacks call it directly: no Python
        #: method in between)
        self._buf, self.raw = f.buffer()
        for i in range(f.n_in()):
            self._buf.set_arg(i, memoryview(self.arg[f.name_in(i)]))
        for i, r in enumerate(self.out):
            self._buf.set_res(i, memoryview(r))

    def __call__(self) -> None:
        self.raw()

    def evaluate(self, *args) -> list[np.ndarray]:
        """Copy the arguments in (in input order), evaluate, return copies of the outputs."""
        for a, value in zip(self.arg.values(), args):
            a[:] = value
        self.raw()
        return [r.copy() for r in self.out]


#: Points per evaluation of the mapped function (those past the last whole chunk are evaluated
#: one by one).
CHUNK = 128


class Columns:
    """``f`` at many points: inputs listed in ``shared`` are one value for all points, the
    others one column per point. Outputs are dense, one column per point (a matrix output
    of shape (r, c) gives c columns per point, side by side)."""

    def __init__(self, f: ca.Function, shared: tuple[int, ...] = ()) -> None:
        dense = ca.Function(f.name() + "_dense", f.mx_in(),
                            [ca.densify(o) for o in f.call(f.mx_in())],
                            f.name_in(), f.name_out()) if any(
            not f.sparsity_out(i).is_dense() for i in range(f.n_out())) else f
        self.shared = set(shared)
        self.shape_in = [dense.size_in(i) for i in range(dense.n_in())]
        self.shape_out = [dense.size_out(i) for i in range(dense.n_out())]
        # whole chunks through the mapped function, the rest point by point (a chunk padded
        # for a single point would evaluate it CHUNK times)
        self.chunked = Buffered(dense.map(f.name() + "_columns", "serial", CHUNK,
                                          sorted(self.shared), []))
        self.single = Buffered(dense)

    def __call__(self, *args) -> list[np.ndarray]:
        """Inputs in order (shared: a vector; others: an array with one column per point, or
        a row for a scalar input); outputs as arrays (rows, columns per point * points)."""
        n = None
        cols = []
        for i, a in enumerate(args):
            a = np.asarray(a, float)
            if i in self.shared or self.shape_in[i][0] == 0:
                # one value for every point (an input of no rows: nothing)
                for buf in (self.chunked, self.single):
                    list(buf.arg.values())[i][:] = a.ravel()
                cols.append(None)
                continue
            a = a.reshape(self.shape_in[i][0], -1)
            n = a.shape[1] if n is None else n
            cols.append(a)
        if n is None:
            raise ValueError("Columns: no input has a column per point")
        outs = [np.empty((r, c * n)) for r, c in self.shape_out]
        whole = n - n % CHUNK
        for buf, size, starts in ((self.chunked, CHUNK, range(0, whole, CHUNK)),
                                  (self.single, 1, range(whole, n))):
            inputs = list(buf.arg.values())
            for start in starts:
                stop = start + size
                for i, a in enumerate(cols):
                    if a is not None:
                        inputs[i][:] = a[:, start:stop].ravel(order="F")
                buf()
                for out, res, (r, c) in zip(outs, buf.out, self.shape_out):
                    out[:, start * c:stop * c] = res.reshape(r, size * c, order="F")
        return outs


def columns(cs, which, build, shared: tuple[int, ...] = ()) -> Columns:
    """The cached :class:`Columns` of a compiled realisation's function ``build()`` (cache key
    ``which``)."""
    return cs.cached(("columns", which, shared), lambda: Columns(build(), shared))
