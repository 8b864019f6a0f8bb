"""The domain core: memoryd's rules as plain Python, with no I/O.

Everything here can be used and tested without a database, a model or a network:
storage, rerankers, the HTTP server and the CLI are layers around it.
"""
