"""The HTTP service: REST API, OpenAI-compatible proxy and web UI (``memoryd serve``).

Everything here is a thin layer over ``memoryd.Memoryd``; ``create_app`` builds the one
FastAPI application. Needs the ``server`` extra (``pip install 'memoryd[server]'``).
"""
