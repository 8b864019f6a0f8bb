"""The ``memoryd`` command line, built with typer over the library API."""
