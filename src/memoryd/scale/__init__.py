"""Scaling out (R16): extraction as procrastinate tasks on any number of worker processes.

``memoryd.scale.tasks`` defines the tasks and the procrastinate app over memoryd's own
PostgreSQL database; ``memoryd.scale.worker`` runs a worker (``memoryd worker``). Needs
the ``scale`` extra (``pip install 'memoryd[scale]'``). See docs/deploy.md.
"""
