"""tracker tokens (a person's secret URL for a GPS tracker app, kept as a SHA-256) and the speed a tracker's device measured on its pings

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27 04:30:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa



# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: Union[str, Sequence[str], None] = "0009"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "tracker_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("person_ref", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_app", sa.String(length=16), nullable=True),
        sa.Column("last_heard_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tracker_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_tracker_tokens_token_hash")),
    )
    op.create_index(
        "ix_tracker_tokens_person_ref", "tracker_tokens", ["person_ref"], unique=False
    )
    with op.batch_alter_table("location_pings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("speed_kmh", sa.Double(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("location_pings", schema=None) as batch_op:
        batch_op.drop_column("speed_kmh")
    op.drop_index("ix_tracker_tokens_person_ref", table_name="tracker_tokens")
    op.drop_table("tracker_tokens")
