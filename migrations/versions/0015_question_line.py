"""question line: the line the seekers ride, kept with a transit-line question

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 04:40:00
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0015"
down_revision: Union[str, Sequence[str], None] = "0014"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    # A nullable column: added in place on SQLite too (questions asked before have none).
    op.add_column("questions", sa.Column("line", sa.String(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    # Not in batch mode either: copying the table on SQLite would cascade to its answer checks.
    op.drop_column("questions", "line")
