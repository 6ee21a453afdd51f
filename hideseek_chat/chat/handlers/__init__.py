"""What players do, one module per kind of thing: setting up, questions, cards, the end
game, information, pins, and the botnet game.

Each handler takes the message's ``Turn`` (and a command's arguments or a decoded button
press) and returns the direct replies; refusals are raised. ``chat.routes`` says which
handler serves which command and button.
"""
