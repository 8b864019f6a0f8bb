"""The access layer: who may read or change what, decided once for every surface.

The REST API, the web UI, MCP and the command line each let someone act on memoryd, and
the rules of what they may reach are the same everywhere (R8): a default user reaches
their own memories, and only in the workspaces they belong to; an admin reaches every
user's; only admins manage users, workspaces' members and extraction runs. Those rules
live here and nowhere else, as functions that take a ``callers.Site`` (the facade and
who belongs to which workspace) and the caller (a ``callers.Owner`` or a ``User``),
return domain types and raise the domain's errors: ``NotFound`` for what the caller may
not see (it looks like nothing at all), ``PermissionDenied`` (``AdminOnly``) for what
they see but may not do. Each surface turns those into its own form -- a 4xx JSON body,
a message on the page, an MCP tool error, one line and an exit code -- and never calls
another surface's functions (``tests/core/test_layers.py``).

Nothing here speaks HTTP: ``credentials`` turns an API key, a session token or a
password into a user; reading them from a request is the server's business.

Modules: ``callers`` (Owner, Site, workspace membership, admins), ``credentials``,
``memories``, ``suggestions``, ``audit``, ``chats`` (recorded chats and a turn's
memories), ``accounts`` (users and workspaces), ``extraction`` (runs started by hand),
``history_imports``, and ``wire``: the JSON forms of memoryd's objects that the REST
API, MCP and the web UI's detail all show the same way.
"""
