"""Connectors and component models (1-D mechanics, planar mechanics, ...)."""
