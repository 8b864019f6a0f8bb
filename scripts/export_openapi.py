#!/usr/bin/env python3
"""Writes the published OpenAPI schema of the REST API to docs/openapi.json.

Run it after changing an endpoint or a schema: ``python scripts/export_openapi.py``.
tests/client/test_openapi_contract.py fails while the file and the app disagree, and the
TypeScript client (clients/typescript) is generated from this file.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "docs" / "openapi.json"


def current_schema() -> str:
    """The app's schema as the file holds it (sorted keys, 2-space indent)."""
    from memoryd.app.service import Memoryd
    from memoryd.config import MemorydSettings
    from memoryd.server.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        settings = MemorydSettings(data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/schema.db")
        with Memoryd(settings=settings) as md:
            schema = create_app(md, settings).openapi()
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> None:
    SCHEMA.write_text(current_schema(), encoding="utf-8")
    print(f"wrote {SCHEMA.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
