"""time zones: a game's zone by name instead of a fixed UTC offset; a map pack's country

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 02:50:00.000000

``game_settings.utc_offset_min`` becomes ``time_zone``: an offset of 0 becomes ``UTC``, any
other the fixed-offset name ``UTC+02:00`` / ``UTC-05:30`` (``rules.localtime``), marked as
typed by the admin (only an admin could set it), so a later map choice keeps it. Downgrading
turns a fixed offset back into minutes and an IANA zone into its offset at that moment.
"""
from datetime import UTC, datetime
from typing import Sequence, Union
from zoneinfo import ZoneInfo

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: Union[str, Sequence[str], None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

settings = sa.table(
    "game_settings",
    sa.column("game_id", sa.Integer()),
    sa.column("utc_offset_min", sa.Integer()),
    sa.column("time_zone", sa.String()),
    sa.column("time_zone_typed", sa.Boolean()),
)


def _offset_name(offset_min: int) -> str:
    # A frozen copy of rules.localtime.offset_name: a revision must not change with the code.
    if offset_min == 0:
        return "UTC"
    sign = "+" if offset_min > 0 else "-"
    hours, minutes = divmod(abs(offset_min), 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"


def _offset_min(name: str) -> int:
    if name == "UTC":
        return 0
    if name.startswith(("UTC+", "UTC-")) and len(name) == 9:
        sign = -1 if name[3] == "-" else 1
        return sign * (int(name[4:6]) * 60 + int(name[7:9]))
    offset = datetime.now(UTC).astimezone(ZoneInfo(name)).utcoffset()
    return int(offset.total_seconds() // 60) if offset else 0


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("game_settings", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("time_zone", sa.String(), server_default="UTC", nullable=False)
        )
        batch_op.add_column(
            sa.Column("time_zone_typed", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    connection = op.get_bind()
    rows = connection.execute(sa.select(settings.c.game_id, settings.c.utc_offset_min)).all()
    for game_id, offset in rows:
        if offset:
            connection.execute(
                settings.update()
                .where(settings.c.game_id == game_id)
                .values(time_zone=_offset_name(offset), time_zone_typed=True)
            )
    with op.batch_alter_table("game_settings", schema=None) as batch_op:
        batch_op.drop_column("utc_offset_min")
    with op.batch_alter_table("map_packs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("country", sa.String(), server_default="", nullable=False))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("map_packs", schema=None) as batch_op:
        batch_op.drop_column("country")
    with op.batch_alter_table("game_settings", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("utc_offset_min", sa.Integer(), server_default="0", nullable=False)
        )
    connection = op.get_bind()
    rows = connection.execute(sa.select(settings.c.game_id, settings.c.time_zone)).all()
    for game_id, name in rows:
        connection.execute(
            settings.update()
            .where(settings.c.game_id == game_id)
            .values(utc_offset_min=_offset_min(name))
        )
    with op.batch_alter_table("game_settings", schema=None) as batch_op:
        batch_op.drop_column("time_zone_typed")
        batch_op.drop_column("time_zone")
