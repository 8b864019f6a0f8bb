"""One user's audit log with every kind of entry in it, for the audit tests of each surface
(library, REST API, client, CLI): ``tell_story(md, ...)`` makes the changes through the
library and says which memory is which.

In order, for ``alice`` (``bob`` gets one memory in between, which no reading of
alice's log may show):

1. ``tea``: a global memory, created (deleted by an admin at the end, step 11)
2. ``plans``: a memory in the workspace alice keeps, created, then 3. edited
4. ``secret``: a memory in the workspace alice later leaves, created
5. ``vim``: made there too, then 6. promoted to global
7. ``gone``: made there too, then 8. deleted
9. a chat in each of the two workspaces, both deleted at once (``delete_chats``)
10. ``imported``: a global memory from an import (actor ``import:<alice>``)
11. ``tea`` deleted by the admin (actor ``admin:<admin>``)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from memoryd import Memoryd
from memoryd.domain.models import Actor, Source

# (action, memory) of alice's entries, oldest first; "" is the chat deletion
STORY = [
    ("create", "tea"),
    ("create", "plans"),
    ("update", "plans"),
    ("create", "secret"),
    ("create", "vim"),
    ("promote", "vim"),
    ("create", "gone"),
    ("delete", "gone"),
    ("delete_chats", ""),
    ("create", "imported"),
    ("delete", "tea"),
]


@dataclass(frozen=True)
class Story:
    alice: int
    bob: int
    admin: int
    kept: str  # the workspace alice stays a member of
    left: str  # the workspace alice is not (or no longer) a member of
    ids: dict[str, str]  # memory name in STORY -> its id ("" -> "")

    def names(self, memory_ids: list[str]) -> list[str]:
        """The STORY names of these memory ids."""
        by_id = {v: k for k, v in self.ids.items()}
        return [by_id[i] for i in memory_ids]


def tell_story(md: Memoryd, alice: int, bob: int, admin: int, *, kept: str, left: str) -> Story:
    """Make STORY's changes (the workspaces must exist); returns which memory is which."""
    ids = {"": ""}
    ids["tea"] = md.add_memory(alice, "Prefers tea").id
    md.add_memory(bob, "Bob's own fact")
    ids["plans"] = md.add_memory(alice, "Phoenix ships in Q3", workspace=kept).id
    md.edit_memory(alice, ids["plans"], "Phoenix ships in Q4")
    ids["secret"] = md.add_memory(alice, "The gamma launch is secret", workspace=left).id
    ids["vim"] = md.add_memory(alice, "Uses vim", workspace=left).id
    md.promote(alice, ids["vim"])
    ids["gone"] = md.add_memory(alice, "An old gamma fact", workspace=left).id
    md.delete_memory(alice, ids["gone"])
    md.record_chat(alice, kept, "hello there", "hi")
    md.record_chat(alice, left, "secret words", "ok")
    md.clear_chats(alice)
    line = json.dumps({"content": "Reads science fiction", "scope": "global"})
    md.import_memories(alice, [line])
    ids["imported"] = next(m.id for m in md.list_memories(alice) if m.content.startswith("Reads"))
    md.delete_memory(alice, ids["tea"], actor=Actor(Source.ADMIN, admin))
    return Story(alice, bob, admin, kept, left, ids)
