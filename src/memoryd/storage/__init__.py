"""Storage: SQLAlchemy tables, migrations, and the repository used inside transactions."""

from memoryd.storage.database import Database
from memoryd.storage.repository import Repository

__all__ = ["Database", "Repository"]
