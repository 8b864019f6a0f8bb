"""Helpers the tests import (``from support.extraction import observe``), kept out of the
conftest files so that any set of test directories can run in one pytest call.

``tests/`` is on ``sys.path`` because ``tests/conftest.py`` lives there (pytest's default
"prepend" import mode), so ``support`` resolves from every test directory.
"""
