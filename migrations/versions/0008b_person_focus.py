"""which game a person's private messages are about (person_focus); a group's title

Revision ID: 0008b
Revises: 0008a
Create Date: 2026-11-26 22:45:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0008b"
down_revision: Union[str, Sequence[str], None] = "0008a"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "person_focus",
        sa.Column("ref", sa.String(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"],
            name=op.f("fk_person_focus_game_id_games"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("ref", name=op.f("pk_person_focus")),
    )
    # Not in batch mode: SQLite would copy "chats" into a new table, and dropping the old
    # one deletes every game through their ON DELETE CASCADE.
    op.add_column("chats", sa.Column("title", sa.String(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column("chats", "title")
    op.drop_table("person_focus")
