"""FMI 2.0 FMUs (model exchange, optionally co-simulation) of compiled systems.

``system.export_fmu("model.fmu")`` (or ``acausal fmu MODEL.py:Class model.fmu``) writes a
Functional Mock-up Unit that every FMI 2.0 importer can simulate (the tests check it with
FMPy):

* ``modelDescription.xml``: every parameter (``causality="parameter"``, ``variability=
  "tunable"``), every ``Input`` (``causality="input"``), every discrete variable, every state and
  its derivative ``der(<state>)``, and every other variable of the model (``causality="local"``,
  or ``"output"`` for the names given in ``outputs=``) by its dotted name, with units and
  descriptions; event indicators; the model structure.
* ``sources/``: the model's CasADi functions as C (CasADi code generation), the tables written
  here (``model_data.h``) and acausal's FMI 2.0 wrapper (``fmi2_wrapper.c`` in this package,
  :data:`FMI2_WRAPPER`, written from the FMI 2.0.4 specification; no header file of the
  standard or of another project is copied).
* ``binaries/<platform>/<modelIdentifier>.so`` (``.dylib``, ``.dll``): built with the system C
  compiler for the current platform.

The modules: :mod:`.export` (``export_fmu``: the arguments, the build, the zip),
:mod:`.variables` (the ScalarVariables and the outputs), :mod:`.events` (the event tables),
:mod:`.model_description` (modelDescription.xml), :mod:`.c_tables` (the CasADi functions,
model_data.h and the wrapper). The initialisation system is acausal's own
(:mod:`acausal.run.initial_system`). How the FMU initialises, solves a DAE's algebraic
equations, handles events and (for ``kind="co-simulation"``) integrates itself is described at
the top of ``fmi2_wrapper.c`` and in docs/fmu_export.md.
"""

from .c_tables import FMI2_WRAPPER
from .export import SUPPORTED_FMI_VERSIONS, SUPPORTED_KINDS, export_fmu, fmi2_platform

__all__ = ["FMI2_WRAPPER", "SUPPORTED_FMI_VERSIONS", "SUPPORTED_KINDS", "export_fmu",
           "fmi2_platform"]
