"""Who may read or change what: the rules every surface (REST API, web UI, MCP, command
line) applies, decided here once (issue 36).

A default user reaches their own memories, in the workspaces they belong to; an admin
reaches everyone's and alone manages users, workspaces and extraction runs (R8). The
functions take a ``callers.Site`` (the facade and the memberships) and the caller (an
``Owner`` or a ``User``), return domain types and raise domain errors: ``NotFound`` for
what the caller may not see, ``PermissionDenied`` (``AdminOnly``) for what they may not
do. Each surface turns those into its own form and never calls another surface; nothing
here speaks HTTP. ``wire`` holds the JSON forms the REST API, MCP and the web UI share.
"""
