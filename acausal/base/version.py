"""The package version (one place: the top package, the CLI and the exporters read it here)."""

__version__ = "0.1.0"
