"""The models memoryd runs: embedders, rerankers and LLM providers.

Each kind is a small interface with built-ins registered through the plugin hooks
(``memoryd.plugins.hookspecs``), as an installed plugin's would be.
"""
