"""The conversation: inbound messages to engine events, decisions to localized messages.

Channel-neutral: adapters (``hideseek_chat.telegram``, the console) convert their updates
to ``model.Inbound`` values and perform the ``model.Outbound`` actions they get back.
"""
