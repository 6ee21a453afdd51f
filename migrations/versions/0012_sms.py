"""sms channel: numbers (opt-out, digest), join codes, members, pending numbered choices, held announcements, texts sent and their delivery

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 04:48:29.956662

"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision: str = '0012'
down_revision: Union[str, Sequence[str], None] = '0011'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('sms_codes',
    sa.Column('code', sa.String(length=8), nullable=False),
    sa.Column('chat_key', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('code', name=op.f('pk_sms_codes')),
    sa.UniqueConstraint('chat_key', name=op.f('uq_sms_codes_chat_key'))
    )
    op.create_table('sms_numbers',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('number', sa.String(length=20), nullable=False),
    sa.Column('opted_out', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('current_chat', sa.String(length=64), nullable=True),
    sa.Column('digest_minutes', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sms_numbers')),
    sa.UniqueConstraint('number', name=op.f('uq_sms_numbers_number'))
    )
    op.create_table('sms_choices',
    sa.Column('number_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('chat', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=False),
    sa.Column('data', sa.String(length=64), nullable=False),
    sa.Column('message_ref', sa.String(length=64), nullable=False),
    sa.Column('made_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['number_id'], ['sms_numbers.id'], name=op.f('fk_sms_choices_number_id_sms_numbers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('number_id', 'position', name=op.f('pk_sms_choices'))
    )
    op.create_table('sms_held',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('number_id', sa.Integer(), nullable=False),
    sa.Column('chat_key', sa.String(length=64), nullable=True),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('held_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['number_id'], ['sms_numbers.id'], name=op.f('fk_sms_held_number_id_sms_numbers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sms_held'))
    )
    with op.batch_alter_table('sms_held', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sms_held_number_id'), ['number_id'], unique=False)

    op.create_table('sms_members',
    sa.Column('number_id', sa.Integer(), nullable=False),
    sa.Column('chat_key', sa.String(length=64), nullable=False),
    sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['number_id'], ['sms_numbers.id'], name=op.f('fk_sms_members_number_id_sms_numbers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('number_id', 'chat_key', name=op.f('pk_sms_members'))
    )
    with op.batch_alter_table('sms_members', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sms_members_chat_key'), ['chat_key'], unique=False)

    op.create_table('sms_messages',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('sid', sa.String(length=64), nullable=True),
    sa.Column('number_id', sa.Integer(), nullable=True),
    sa.Column('chat_key', sa.String(length=64), nullable=True),
    sa.Column('segments', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=24), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('delivery_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['number_id'], ['sms_numbers.id'], name=op.f('fk_sms_messages_number_id_sms_numbers'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sms_messages')),
    sa.UniqueConstraint('sid', name=op.f('uq_sms_messages_sid'))
    )
    with op.batch_alter_table('sms_messages', schema=None) as batch_op:
        batch_op.create_index('ix_sms_messages_chat_key', ['chat_key'], unique=False)
        batch_op.create_index('ix_sms_messages_delivery_id', ['delivery_id'], unique=False)

    op.create_table('sms_media',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('number_id', sa.Integer(), nullable=True),
    sa.Column('content_type', sa.String(length=64), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['number_id'], ['sms_numbers.id'], name=op.f('fk_sms_media_number_id_sms_numbers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sms_media')),
    sa.UniqueConstraint('token', name=op.f('uq_sms_media_token'))
    )
    with op.batch_alter_table('sms_media', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sms_media_number_id'), ['number_id'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('sms_media', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sms_media_number_id'))

    op.drop_table('sms_media')
    with op.batch_alter_table('sms_messages', schema=None) as batch_op:
        batch_op.drop_index('ix_sms_messages_delivery_id')
        batch_op.drop_index('ix_sms_messages_chat_key')

    op.drop_table('sms_messages')
    with op.batch_alter_table('sms_members', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sms_members_chat_key'))

    op.drop_table('sms_members')
    with op.batch_alter_table('sms_held', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sms_held_number_id'))

    op.drop_table('sms_held')
    op.drop_table('sms_choices')
    op.drop_table('sms_numbers')
    op.drop_table('sms_codes')
