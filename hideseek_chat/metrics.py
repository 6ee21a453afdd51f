"""The bot's Prometheus metrics, in a registry of their own (never the library's global one).

The parts that see something happen record it here with one call each::

    metrics.update_handled("command", seconds)   # chat.drive, per inbound message
    metrics.sent("ok")                           # a channel, per outbound action
    metrics.timer_fired(late_seconds)            # chat.conversation, per fired timer
    metrics.rate_limited()                       # telegram.limits, per 429

Values that live in the database (outbox depth, active games) are read when ``/metrics``
is scraped (``web.health``), never counted here. ``install`` swaps in a fresh ``Metrics``
(tests, so each starts from zero); ``current`` is the one in use.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

#: Seconds an update takes from the channel handing it over to its replies performed.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: Seconds a timer fires after it fell due (the tick runs every 2 s; a burst takes longer).
LATENESS_BUCKETS = (0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 900.0)
#: What a performed action came to (``sent``): delivered; refused for good (an old
#: message, a chat the bot left); the person cannot be written to in private; held back
#: to try again (network); Telegram's flood control (429) after the retries; an error.
SEND_RESULTS = ("ok", "refused", "unreachable", "retry", "429", "failed")


class Metrics:
    """The metric objects, registered in ``registry``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.updates = Counter(
            "hideseek_updates_handled",
            "Inbound messages handled, by kind (command, button, location, text, ...).",
            ["kind"],
            registry=self.registry,
        )
        self.update_seconds = Histogram(
            "hideseek_update_seconds",
            "Seconds from an inbound message handed over to its replies performed.",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.sends = Counter(
            "hideseek_sends",
            "Outbound actions performed, by result (" + ", ".join(SEND_RESULTS) + ").",
            ["result"],
            registry=self.registry,
        )
        self.timer_lateness = Histogram(
            "hideseek_timer_lateness_seconds",
            "Seconds a timer fired after its due time (game clock).",
            buckets=LATENESS_BUCKETS,
            registry=self.registry,
        )
        self.rate_limits = Counter(
            "hideseek_telegram_429",
            "Times Telegram answered 429 (flood control, Retry-After).",
            registry=self.registry,
        )
        for result in SEND_RESULTS:  # every result shows, at 0 until it happens
            self.sends.labels(result)


_current = Metrics()


def current() -> Metrics:
    """The metrics being recorded to."""
    return _current


def install(metrics: Metrics) -> Metrics:
    """Record to ``metrics`` from now on; return the ones recorded to before."""
    global _current
    previous, _current = _current, metrics
    return previous


def update_handled(kind: str, seconds: float) -> None:
    """Count one inbound message of ``kind`` that took ``seconds``."""
    _current.updates.labels(kind).inc()
    _current.update_seconds.labels(kind).observe(max(0.0, seconds))


def sent(result: str) -> None:
    """Count one outbound action that came to ``result`` (one of ``SEND_RESULTS``)."""
    _current.sends.labels(result).inc()


def timer_fired(late_seconds: float) -> None:
    """Record a timer that fired ``late_seconds`` after it fell due."""
    _current.timer_lateness.observe(max(0.0, late_seconds))


def rate_limited() -> None:
    """Count one 429 from Telegram."""
    _current.rate_limits.inc()
