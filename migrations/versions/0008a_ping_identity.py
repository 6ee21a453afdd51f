"""location pings name the message version they came from (stored once per player, message and edit date) and are read newest first by id

Revision ID: 0008a
Revises: 0007
Create Date: 2026-11-26 22:40:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0008a"
down_revision: Union[str, Sequence[str], None] = "0007"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("location_pings", schema=None) as batch_op:
        batch_op.drop_index("ix_location_pings_game_id_player_id_at")
        batch_op.create_index(
            "ix_location_pings_game_id_player_id_id", ["game_id", "player_id", "id"], unique=False
        )
        batch_op.add_column(sa.Column("message_ref", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_location_pings_game_id"),
            ["game_id", "player_id", "sent_at", "message_ref"],
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("location_pings", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_location_pings_game_id"), type_="unique")
        batch_op.drop_column("sent_at")
        batch_op.drop_column("message_ref")
        batch_op.drop_index("ix_location_pings_game_id_player_id_id")
        batch_op.create_index(
            "ix_location_pings_game_id_player_id_at", ["game_id", "player_id", "at"], unique=False
        )
