"""The SMS channel: a game by text message through a Twilio-compatible gateway.

- ``segments``: texts fitted to SMS (GSM-7 or UCS-2, split at segment boundaries, a cap);
- ``choices``: buttons as numbered choices and the reply that picks one;
- ``keywords``: what a text means (NEW, JOIN, STATUS, STOP, START, HELP, any command);
- ``gateway``: the gateway's REST API (twilio's Client), sending in a worker thread;
- ``outgoing``: the actions as texts to numbers (fan-out, choices, photos, digests);
- ``channel``: ``SmsChannel``, the adapter: inbound texts to the conversation, its actions
  to texts (a group's announcements to every member's number).
"""
