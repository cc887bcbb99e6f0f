"""Layer 2, the compiler: flattening, the structural passes (``structure/``), code generation
of one realisation, and the :class:`~acausal.compiler.compiled_model.CompiledModel` it returns
(functions, names and indices: data, nothing that runs it).

Imports :mod:`acausal.base` and :mod:`acausal.language`.
"""
