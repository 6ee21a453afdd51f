"""sms held delivery: an announcement held for a digest names its outbox entry, held once

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
        "uq_sms_held_number_id_delivery_id",
        "sms_held",
        ["number_id", "delivery_id"],
        unique=True,
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index("uq_sms_held_number_id_delivery_id", table_name="sms_held")
    op.drop_column("sms_held", "taken_at")
    op.drop_column("sms_held", "delivery_id")
