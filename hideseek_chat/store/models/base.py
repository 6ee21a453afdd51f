"""The declarative base: naming conventions, aware datetimes and enums stored as strings."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Enum, ForeignKeyConstraint, MetaData, String
from sqlalchemy.orm import DeclarativeBase

from hideseek_chat.store.types import UTCDateTime

#: Stable constraint names, so migrations can refer to them on every database.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), str: String()}  # noqa: RUF012


def str_enum(enum: type[StrEnum]) -> Enum:
    """Store ``enum`` as its string values in a plain VARCHAR column (no native type)."""
    return Enum(
        enum,
        native_enum=False,
        create_constraint=False,
        length=24,
        values_callable=lambda members: [m.value for m in members],
        validate_strings=True,
    )


GAME_FK = "games.id"


def game_ref(column: str, table: str, target: str = "id", **kwargs: Any) -> ForeignKeyConstraint:
    """A composite foreign key ``(game_id, column)`` to ``table (game_id, target)``.

    Deferred to commit, so a save may write a game's rows in any order.
    """
    return ForeignKeyConstraint(
        ["game_id", column],
        [f"{table}.game_id", f"{table}.{target}"],
        deferrable=True,
        initially="DEFERRED",
        **kwargs,
    )
