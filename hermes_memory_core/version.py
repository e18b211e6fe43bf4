"""The installed distribution's version (``0.0.0+local`` when running from a source tree)."""

from importlib import metadata as _metadata

__all__ = ["DISTRIBUTION", "__version__"]

#: The distribution name on the package index (``hermes-memory`` there is another project's; the import packages
#: and the ``hermes-memory`` command keep their names).
DISTRIBUTION = "hermes-memory-layer"

try:
    __version__ = _metadata.version(DISTRIBUTION)
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+local"
