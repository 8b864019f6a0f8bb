"""Who may read or change what: the rules every surface (REST API, web UI, MCP, command
line) applies, decided here once (issue 36).

The functions take a ``callers.Site`` and the caller, return domain types and raise
domain errors: ``NotFound`` for what the caller may not see, ``PermissionDenied``
(``AdminOnly``) for what they may not do. Nothing here speaks HTTP; ``wire`` holds the
JSON forms the REST API, MCP and the web UI share.
"""
