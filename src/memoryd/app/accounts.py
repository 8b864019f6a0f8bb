"""The administration part of the library facade: users, workspaces, memberships and the
instance's run-time settings.

A change of role or membership is written with its audit entry in one transaction; with
``keep_an_admin`` the last admin can be neither demoted nor deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memoryd.app.memberships import BY_ADMIN, change_membership, end_memberships, set_membership
from memoryd.app.user_settings import change_role
from memoryd.domain import runtime_settings
from memoryd.domain.errors import AlreadyExists, InvalidInput, NotFound
from memoryd.domain.models import Actor, Role, Source, User, UserSummary, Workspace
from memoryd.domain.rules import is_row_id, validate_display_name, validate_slug, validate_user_name

if TYPE_CHECKING:
    from memoryd.app.backends import Backends
    from memoryd.storage.repository import Repository


class AccountService:
    """Users, workspaces, memberships and instance settings (see the module doc)."""

    def __init__(self, backends: Backends) -> None:
        self.backends = backends
        self.store = backends.store

    def create_user(self, name: str, role: Role | str = Role.DEFAULT) -> User:
        name = validate_user_name(name)
        role = _role(role)
        with self.backends.db.write() as repo:
            if repo.get_user_by_name(name):
                raise AlreadyExists(f"user {name!r} already exists")
            return repo.insert_user(name, role, self.backends.clock())

    def get_user(self, user: int | str) -> User:
        """A user by id, or by name when given a string."""
        found = None
        if isinstance(user, str) or is_row_id(user):
            with self.backends.db.read() as repo:
                found = (
                    repo.get_user_by_name(user) if isinstance(user, str) else repo.get_user(user)
                )
        if found is None:
            raise NotFound(f"no user {user!r}")
        return found

    def list_users(self) -> list[User]:
        with self.backends.db.read() as repo:
            return repo.list_users()

    def user_summaries(self) -> list[UserSummary]:
        """Every user with memory counts, usable workspaces and own choices (a few
        queries in one transaction, however many users)."""
        with self.backends.db.read() as repo:
            return repo.user_summaries()

    def set_role(
        self,
        user_id: int,
        role: Role | str,
        *,
        keep_an_admin: bool = False,
        actor: Actor | None = None,
    ) -> User:
        """Change a role. With ``keep_an_admin`` the last admin cannot be demoted, checked
        in the same locked transaction as the change (two admins demoting each other at
        once leave one). A real change is one ``change_setting`` entry in the user's
        audit log, by ``actor`` (default: ``admin``, whoever administers the database,
        as on the command line)."""
        new_role = _role(role)
        actor = actor or Actor(Source.ADMIN)
        with self.backends.db.write() as repo:
            self.store.require_user(repo, user_id)
            if keep_an_admin and new_role is not Role.ADMIN:
                _keep_an_admin(repo, user_id)
            repo.lock_user(user_id)  # only after the admins' rows: two demotions cannot deadlock
            change_role(repo, user_id, new_role, actor, self.backends.clock())
            user = repo.get_user(user_id)
        assert user is not None
        return user

    def delete_user(self, user_id: int, *, keep_an_admin: bool = False) -> None:
        """Delete a user with their memories, chats and audit log (with ``keep_an_admin``,
        not the last admin: see ``set_role``)."""
        with self.backends.db.write() as repo:
            self.store.require_user(repo, user_id)
            if keep_an_admin:
                _keep_an_admin(repo, user_id)
            repo.delete_user(user_id)

    def create_workspace(
        self,
        slug: str,
        name: str | None = None,
        *,
        member: int | None = None,
        actor: Actor | None = None,
        quota: int | None = None,
    ) -> Workspace:
        """A new workspace; with ``member``, that user joins it in the same transaction
        (by ``actor``), refused with PermissionDenied when that would take them past
        ``quota`` workspaces (see ``memoryd.app.memberships.change_membership``)."""
        slug = validate_slug(slug)
        display = validate_display_name(name, what="workspace name") if name else slug
        with self.backends.db.write() as repo:
            if member is not None:  # locked first, as every write of the user's does
                self.store.require_user(repo, member, lock=True)
            if repo.workspace_id(slug) is not None:
                raise AlreadyExists(f"workspace {slug!r} already exists")
            workspace = repo.insert_workspace(slug, display, self.backends.clock())
            if member is not None:
                by = actor or BY_ADMIN
                change_membership(repo, slug, member, True, by, self.backends.clock(), quota=quota)
            return workspace

    def get_workspace(self, slug: str) -> Workspace:
        with self.backends.db.read() as repo:
            found = repo.get_workspace(slug)
        if found is None:
            raise NotFound(f"no workspace {slug!r}")
        return found

    def has_workspace(self, slug: str, *, trust_s: float = 0.25) -> bool:
        """Whether the workspace exists; answered from the per-process cache if it was
        checked against the database in the last ``trust_s`` seconds."""
        catalog = self.backends.catalog
        if catalog.checked_within(trust_s) and catalog.get("workspaces", slug) is not None:
            return True
        with self.backends.db.read() as repo:
            version = catalog.check(repo.conn)
            found = repo.workspace_id(slug)
        if found is not None:
            catalog.put("workspaces", slug, found, version)
        return found is not None

    def list_workspaces(self) -> list[Workspace]:
        with self.backends.db.read() as repo:
            return repo.list_workspaces()

    def delete_workspace(self, slug: str, *, actor: Actor | None = None) -> None:
        """Delete a workspace with its memories and chats; each member's audit log records
        that they are no longer one (by ``actor``, default ``admin``: memoryd.app.memberships)."""
        with self.backends.db.write() as repo:
            workspace_id = self.store.require_workspace(repo, slug)
            end_memberships(repo, workspace_id, slug, actor or BY_ADMIN, self.backends.clock())
            repo.delete_workspace(workspace_id)

    # memberships -------------------------------------------------------------------
    def add_member(self, slug: str, user_id: int, *, actor: Actor | None = None) -> bool:
        """Let a user into a workspace; False when they were a member already (nothing is
        recorded then). The change is one ``change_setting`` entry in the user's audit
        log, by ``actor`` (default: ``admin``)."""
        return set_membership(self.backends.db, self.backends.clock, slug, user_id, True, actor)

    def remove_member(self, slug: str, user_id: int, *, actor: Actor | None = None) -> None:
        """Take a user out of a workspace (their memories there stay stored, unused), with
        its audit entry as for ``add_member``; ``NotFound`` if they are not a member."""
        set_membership(self.backends.db, self.backends.clock, slug, user_id, False, actor)

    # instance settings -------------------------------------------------------------
    def get_settings(self) -> dict[str, Any]:
        with self.backends.db.read() as repo:
            return runtime_settings.effective(repo.get_settings())

    def parse_setting(self, key: str, value: object) -> Any:
        """The stored form of a setting's value, or InvalidInput saying why not."""
        spec = runtime_settings.spec_for(key)
        parsed = spec.parse(value)
        if spec is runtime_settings.EXTRACTION_PROVIDER and parsed:
            from memoryd.plugins import llm_provider_factories, pick

            pick("LLM provider", parsed, llm_provider_factories())
        return parsed

    def set_setting(self, key: str, value: object) -> Any:
        parsed = self.parse_setting(key, value)
        with self.backends.db.write() as repo:
            repo.put_setting(key, parsed, self.backends.clock())
        return parsed


def _keep_an_admin(repo: Repository, user_id: int) -> None:
    """Refuse to demote or delete the last admin; locks the admins' rows (PostgreSQL) so
    two transactions cannot each count the other one in."""
    admins = repo.lock_admins()
    if admins == [user_id]:
        user = repo.get_user(user_id)
        name = user.name if user else str(user_id)
        raise AlreadyExists(f"{name} is the last admin; make another admin first")


def _role(role: Role | str) -> Role:
    try:
        return Role(role)
    except ValueError:
        raise InvalidInput(f"unknown role {role!r}: use 'admin' or 'default'") from None
