"""Drawing PNGs for channels that can show pictures (the botnet board; later the zone and
the seekers' map). Pure drawing from values: no chat texts, no HTTP, no database."""
