"""Measuring memoryd on labelled data: ``memoryd eval extraction`` and ``eval retrieval``."""
