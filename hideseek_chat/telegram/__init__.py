"""The python-telegram-bot adapter (thin): updates in, Bot API calls out.

``convert`` turns updates into the conversation's ``Inbound`` values, ``send`` performs its
``Outbound`` actions, ``bot`` builds the ``Application`` that routes between them.
"""
