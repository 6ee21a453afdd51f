"""sms held delivery: an announcement held for a digest names its outbox entry, held once;
texted pictures indexed by their arrival for the purge

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 11:15:00
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0014"
down_revision: Union[str, Sequence[str], None] = "0013"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    # Not in batch mode: a nullable column is added in place on SQLite too.
    op.add_column("sms_held", sa.Column("delivery_id", sa.Integer(), nullable=True))
    op.add_column("sms_held", sa.Column("taken_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(
        "uq_sms_held_delivery_id_number_id",
        "sms_held",
        ["delivery_id", "number_id"],
        unique=True,
    )
    # The hourly purge of texted pictures (``SmsBook.purge_media``) by their age.
    op.create_index("ix_sms_media_received_at", "sms_media", ["received_at"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index("ix_sms_media_received_at", table_name="sms_media")
    op.drop_index("uq_sms_held_delivery_id_number_id", table_name="sms_held")
    op.drop_column("sms_held", "taken_at")
    op.drop_column("sms_held", "delivery_id")
