"""Layer 1, the modelling language: declarations, components and connectors, connections,
events, overdetermined connectors, templates and the symbolic helpers.

Imports only :mod:`acausal.base`. It cannot import the compiler: ``Component.compile()`` calls
the compile function the top package registers
(:func:`acausal.language.model.register_compiler`).
"""
