"""The one HTTP server: the Telegram webhook now; trackers, SMS, health and metrics next."""
