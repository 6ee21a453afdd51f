"""Drawing PNGs for channels that can show pictures: the botnet board, the hider's zone and
the seekers' map (``seekmap``), and the basemap tile client (``tiles``, the one network
client here, passed in from app.py). Pure drawing from values otherwise: no chat texts,
no database."""
