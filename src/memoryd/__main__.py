"""``python -m memoryd``: the same command line as the ``memoryd`` script.

Useful where the script is not on PATH (a venv not activated, a checkout run with
PYTHONPATH) and for ``sys.executable -m memoryd`` in tests and tools.
"""

from memoryd.cli.app import main

main()
