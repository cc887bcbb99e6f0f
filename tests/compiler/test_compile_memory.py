"""What compiling leaves to Python's garbage collector (acausal.compiler.pipeline).

Compiling pauses the cyclic collector and then moves what it kept to the oldest generation
(``gc.freeze()`` and ``gc.unfreeze()``). That is only right if compiling makes (almost) no
reference cycles: their garbage would otherwise wait for a full collection. And a program that
froze objects itself must find them frozen still.
"""

from __future__ import annotations

import gc

from acausal import compile
from tests.compiler.test_templates import Chain


def test_compiling_leaves_almost_no_cyclic_garbage():
    """A 50-mass chain: every component's construction frame and every differentiated
    equation's closures were reference cycles (about 130 objects per mass)."""
    compile(Chain(2))  # imports and caches first
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        model = Chain(50)  # a bound model is a cyclic structure itself (parts know their parent)
        compiled = compile(model)
        found = gc.collect()
    finally:
        if was_enabled:
            gc.enable()
    assert compiled.n_states == 100
    assert found < 50  # sympy's own Basic.replace leaves a few cycles


def test_the_collector_is_enabled_again_and_frozen_objects_stay_frozen():
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        compile(Chain(3))
        assert gc.isenabled()
        # still frozen (unfreezing would leave none; a frozen object that is freed leaves too)
        assert gc.get_freeze_count() > frozen - 100
    finally:
        gc.unfreeze()
