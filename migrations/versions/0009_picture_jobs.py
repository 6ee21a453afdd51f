"""picture jobs: the seekers' map and the hider's zone drawn in the background; a group's choice to post the seekers' map after every answer

Revision ID: 0009
Revises: 0008b
Create Date: 2026-11-27 01:20:00

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: Union[str, Sequence[str], None] = "0008b"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "picture_jobs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column(
            "kind",
            sa.Enum("seekers", "zone", name="picturekind", native_enum=False, length=24),
            nullable=False,
        ),
        sa.Column(
            "status",
            sa.Enum(
                "queued", "running", "done", "failed",
                name="mapjobstatus", native_enum=False, length=24,
            ),
            nullable=False,
        ),
        sa.Column("round_number", sa.Integer(), nullable=True),
        sa.Column("cause", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_key", sa.String(length=64), nullable=True),
        sa.Column("picture", sa.LargeBinary(), nullable=True),
        sa.CheckConstraint("kind IN ('seekers', 'zone')", name=op.f("ck_picture_jobs_kind")),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')",
            name=op.f("ck_picture_jobs_status"),
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"],
            name=op.f("fk_picture_jobs_game_id_games"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_picture_jobs")),
    )
    with op.batch_alter_table("picture_jobs", schema=None) as batch_op:
        batch_op.create_index("ix_picture_jobs_game_id", ["game_id"], unique=False)
        batch_op.create_index("ix_picture_jobs_status_id", ["status", "id"], unique=False)
    # Not in batch mode: SQLite would copy "chat_prefs" into a new table (see 0008b).
    op.add_column(
        "chat_prefs",
        sa.Column("auto_pictures", sa.Boolean(), server_default=sa.true(), nullable=False),
    )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("chat_prefs", schema=None) as batch_op:
        batch_op.drop_column("auto_pictures")
    with op.batch_alter_table("picture_jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_picture_jobs_status_id")
        batch_op.drop_index("ix_picture_jobs_game_id")
    op.drop_table("picture_jobs")
