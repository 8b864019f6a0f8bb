"""The application layer: the ``Memoryd`` facade and the services it is wired from.

Each service (accounts, memories, turns, chats, lifecycle, audit, transfer, history
import) takes only what it needs through ``memoryd.app.backends.Backends``; the surfaces
(server, CLI, MCP, integrations) sit on top of this package, storage and the models below.
"""
