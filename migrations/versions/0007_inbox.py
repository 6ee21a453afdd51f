"""the inbox (updates stored before they are acknowledged) replaces processed_updates; leases

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 10:00:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: Union[str, Sequence[str], None] = "0006"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "inbox",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("update_id", sa.String(length=64), nullable=False),
        sa.Column("lane", sa.String(length=64), nullable=True),
        sa.Column(
            "status",
            sa.Enum(
                "pending", "applied", "refused", "failed", "unreadable",
                name="inboxstatus", native_enum=False, create_constraint=False, length=24,
            ),
            nullable=False,
        ),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbox")),
        sa.UniqueConstraint("update_id", name=op.f("uq_inbox_update_id")),
    )
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.create_index("ix_inbox_received_at", ["received_at"], unique=False)
        batch_op.create_index("ix_inbox_status_id", ["status", "id"], unique=False)
    op.create_table(
        "leases",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_leases")),
    )
    # What was processed stays processed: a redelivery after the upgrade is still skipped.
    op.execute(
        "INSERT INTO inbox (update_id, lane, status, received_at, payload, attempts) "
        "SELECT update_id, NULL, 'applied', processed_at, NULL, 1 FROM processed_updates"
    )
    op.drop_table("processed_updates")


def downgrade() -> None:
    """Downgrade schema."""
    op.create_table(
        "processed_updates",
        sa.Column("update_id", sa.String(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"],
            name=op.f("fk_processed_updates_game_id_games"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("update_id", name=op.f("pk_processed_updates")),
    )
    op.execute(
        "INSERT INTO processed_updates (update_id, game_id, processed_at) "
        "SELECT update_id, NULL, received_at FROM inbox WHERE status <> 'pending'"
    )
    op.drop_table("leases")
    with op.batch_alter_table("inbox", schema=None) as batch_op:
        batch_op.drop_index("ix_inbox_status_id")
        batch_op.drop_index("ix_inbox_received_at")
    op.drop_table("inbox")
