"""chat topic: the forum topic (thread) a group's current game lives in

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 04:30:00
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0011"
down_revision: Union[str, Sequence[str], None] = "0010"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    # Not in batch mode: SQLite would copy "chats" into a new table, and dropping the old
    # one deletes every game through their ON DELETE CASCADE.
    op.add_column("chats", sa.Column("topic", sa.String(length=32), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column("chats", "topic")
