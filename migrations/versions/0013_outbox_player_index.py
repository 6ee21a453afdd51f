"""outbox player index: what a player was told in a game, found without scanning every notice

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 11:00:00
"""
from typing import Sequence, Union

from alembic import op


# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: Union[str, Sequence[str], None] = "0012"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    # Asked each minute for every player whose live location went quiet
    # (``Outbox.notified_since``); the outbox keeps every game's notices.
    op.create_index(
        "ix_outbox_game_id_audience_player_id",
        "outbox",
        ["game_id", "audience_player_id", "created_at"],
        unique=False,
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index("ix_outbox_game_id_audience_player_id", table_name="outbox")
