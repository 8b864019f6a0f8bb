"""Learning memories from past chats: Observer -> Reflector -> Apply, on a schedule (R5-R7, R9-R11).

Entry points: ``memoryd.extraction.pipeline.process_pair`` (one pair, one code path for
every caller) and ``memoryd.extraction.scheduler`` (which pairs are due, and the loop).
"""
