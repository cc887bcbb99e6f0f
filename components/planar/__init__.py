"""Planar (2-D) multibody components after the Modelica PlanarMechanics library."""
