"""A database that refuses every new ``change_setting`` audit entry, to show that a setting
or membership change and its entry are written together or not at all."""

from __future__ import annotations

from sqlalchemy import text

from memoryd import Memoryd


def refuse_setting_entries(md: Memoryd) -> None:
    """Add a trigger that makes ``md``'s database refuse each new ``change_setting``
    entry with the error ``no setting entries``."""
    with md.db.write() as repo:
        conn = repo.conn
        if conn.dialect.name == "sqlite":
            conn.execute(
                text(
                    "CREATE TRIGGER refuse_setting_entries BEFORE INSERT ON audit_log "
                    "WHEN NEW.action = 'change_setting' "
                    "BEGIN SELECT RAISE(ABORT, 'no setting entries'); END"
                )
            )
        else:
            conn.execute(
                text(
                    "CREATE FUNCTION refuse_setting_entries() RETURNS trigger AS $$ "
                    "BEGIN IF NEW.action = 'change_setting' THEN "
                    "RAISE EXCEPTION 'no setting entries'; END IF; RETURN NEW; END $$ "
                    "LANGUAGE plpgsql"
                )
            )
            conn.execute(
                text(
                    "CREATE TRIGGER refuse_setting_entries BEFORE INSERT ON audit_log "
                    "FOR EACH ROW EXECUTE FUNCTION refuse_setting_entries()"
                )
            )
