"""The SMS rows on SQLite and PostgreSQL: numbers, choices per number and chat, members,
delivery statuses, counts and erasure."""

from __future__ import annotations

from hideseek_chat.store import UnitOfWorkFactory
from hideseek_chat.store.sms import is_sms, number_id_of, ref_of
from tests.chat.play import START

A, B = "+41791234561", "+41791234562"


def test_numbers_are_made_once_and_refs_never_hold_them(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        first = uow.sms.number(A, START)
        again = uow.sms.number(A, START)
        assert first is not None and again is not None and first.id == again.id
        assert A not in first.ref and number_id_of(first.ref) == first.id
        assert uow.sms.number(B, START, create=False) is None
        uow.commit()
    assert number_id_of("tg:5") is None and number_id_of("sms:@K7QX") is None
    assert ref_of(3) == "sms:3"
    assert is_sms(ref_of(3)) and is_sms("sms:@K7QX") and is_sms("sms:SM0123")
    assert not is_sms("tg:5") and not is_sms("sms-from:ab12")


def test_private_choices_replace_all_and_group_ones_come_after(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        number = uow.sms.number(A, START)
        assert number is not None
        group = "sms:@K7QX"
        made = uow.sms.offer(number.id, group, [("Join", "j")], "m1", START)
        assert [c.position for c in made] == [1]
        mine = uow.sms.offer(number.id, number.ref, [("Yes", "y"), ("No", "n")], "m2", START)
        assert [c.position for c in mine] == [1, 2]  # the private message replaced all
        later = uow.sms.offer(number.id, group, [("Arrived", "a")], "m3", START)
        assert [c.position for c in later] == [3]  # after the private ones still pending
        assert [c.label for c in uow.sms.choices(number.id)] == ["Yes", "No", "Arrived"]
        uow.sms.withdraw(number.id, "m2")
        assert [c.label for c in uow.sms.choices(number.id)] == ["Arrived"]
        uow.sms.play_in(number.id, group, START)
        assert uow.sms.choices(number.id) == []
        uow.commit()


def test_members_codes_statuses_counts_and_erasure(uow_factory: UnitOfWorkFactory) -> None:
    group = "sms:@AB23"
    with uow_factory() as uow:
        a, b = uow.sms.number(A, START), uow.sms.number(B, START)
        assert a is not None and b is not None
        assert uow.sms.add_code("AB23", group, START)
        assert not uow.sms.add_code("AB23", "sms:@other", START)
        assert uow.sms.chat_of_code("AB23") == group and uow.sms.code_for(group) == "AB23"
        uow.sms.play_in(a.id, group, START)
        uow.sms.play_in(b.id, group, START)
        uow.sms.play_in(b.id, group, START)  # twice: one membership
        assert [m.id for m in uow.sms.members(group)] == [a.id, b.id]
        uow.sms.sent(a.id, group, 2, "SM1", "sent", START)
        uow.sms.sent(b.id, group, 1, "SM2", "sent", START)
        uow.sms.sent(b.id, None, 1, None, "failed", START)
        assert uow.sms.status("SM1", "delivered", START)
        assert uow.sms.status("SM1", "sent", START)  # late, earlier: ignored
        assert not uow.sms.status("SMnope", "delivered", START)
        assert uow.sms.counts(group) == (2, 3)
        uow.sms.opt(a.id, out=True)
        refreshed = uow.sms.by_id(a.id)
        assert refreshed is not None and refreshed.opted_out
        uow.commit()
    with uow_factory() as uow:
        assert uow.sms.forget(a.id)
        uow.commit()
    with uow_factory() as uow:
        assert uow.sms.number(A, START, create=False) is None
        assert [m.id for m in uow.sms.members(group)] == [b.id]
        assert uow.sms.counts(group) == (2, 3)  # the game's count stays, without the number


def test_a_photos_note_speaks_the_language_of_the_text_it_ends(
    uow_factory: UnitOfWorkFactory,
) -> None:
    from hideseek_chat.sms.outgoing import note
    from hideseek_chat.store.chats import ChatPrefs

    with uow_factory() as uow:
        uow.chats.set_prefs("sms:@K7QX", ChatPrefs(language="de"), START)
        spanish = uow.sms.number(A, START)
        stranger = uow.sms.number(B, START)
        assert spanish is not None and stranger is not None
        uow.chats.set_language(spanish.ref, "Ana", "es", START)
        assert note(uow, "sms:@K7QX") == "(ein Foto: Telegram-Spieler sehen es)"
        assert note(uow, spanish.ref).startswith("(una foto")
        assert note(uow, stranger.ref) == "(a photo: Telegram players see it)"


def test_a_digests_announcement_counts_as_texted_until_long_after_it_went(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """An outbox entry held for a number's digest counts as reaching the number (``texted``),
    before the digest and until the hourly purge a day after it went, so a retry of the
    entry (another channel failing) neither holds it again nor texts it; the digest's text
    itself is not kept."""
    from datetime import timedelta

    from hideseek_chat.store.sms import KEEP_TAKEN

    with uow_factory() as uow:
        number = uow.sms.number(A, START)
        assert number is not None
        uow.sms.set_digest(number.id, 10)
        uow.sms.hold(number.id, "sms:@K7QX", "The game is on!", START, 7)
        uow.sms.hold(number.id, "sms:@K7QX", "Bob joined.", START, None)
        uow.commit()
    later = START + timedelta(minutes=10)
    with uow_factory() as uow:
        assert uow.sms.texted(7) == {number.id}
        assert [n.id for n in uow.sms.digests_due(later)] == [number.id]
        taken = uow.sms.take_held(number.id, later)
        assert taken == [("sms:@K7QX", "The game is on!"), ("sms:@K7QX", "Bob joined.")]
        uow.commit()
    with uow_factory() as uow:
        assert uow.sms.texted(7) == {number.id}, "a retry after the digest went"
        assert uow.sms.digests_due(later + timedelta(hours=1)) == [], "nothing waits"
        assert uow.sms.take_held(number.id, later) == []
        assert uow.sms.purge_taken(later + KEEP_TAKEN - timedelta(minutes=1)) == 0
        assert uow.sms.purge_taken(later + KEEP_TAKEN + timedelta(minutes=1)) == 1
        uow.commit()
    with uow_factory() as uow:
        assert uow.sms.texted(7) == set(), "forgotten a day later"


def test_texted_pictures_go_a_while_after_their_sender_stops_playing(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """``purge_media`` (hourly, with the pings' retention): a picture stays while its sender
    plays in an unfinished game, then goes once older than the retention; one of nobody's
    goes by its age alone."""
    from datetime import timedelta

    from hideseek_chat.rules import Size, load_ruleset, new_game
    from hideseek_chat.rules.events import GameAborted
    from hideseek_chat.store import handle, start_game

    with uow_factory() as uow:
        a, b = uow.sms.number(A, START), uow.sms.number(B, START)
        assert a is not None and b is not None
        uow.commit()
    chat = "sms:@K7QX"
    state, decisions = new_game(load_ruleset("metric"), Size.SMALL, 7, a.ref, "A", START)
    assert start_game(uow_factory, chat, state, decisions, START) is not None
    with uow_factory() as uow:
        playing = uow.sms.add_media("image/png", b"a", START, a.id)[0]
        idle = uow.sms.add_media("image/png", b"b", START, b.id)[0]
        nobodys = uow.sms.add_media("image/png", b"c", START)[0]
        fresh = uow.sms.add_media("image/png", b"d", START + timedelta(hours=23), b.id)[0]
        uow.commit()
    keep = timedelta(hours=24)

    def kept() -> set[int]:
        with uow_factory() as uow:
            return {m for m in (playing, idle, nobodys, fresh) if uow.sms.media(m) is not None}

    with uow_factory() as uow:
        assert uow.sms.purge_media(START + timedelta(hours=23, minutes=59), keep) == 0
        assert uow.sms.purge_media(START + timedelta(hours=25), keep) == 2
        uow.commit()
    assert kept() == {playing, fresh}
    handle(uow_factory, chat, GameAborted(a.ref), START + timedelta(hours=26))
    with uow_factory() as uow:
        assert uow.sms.purge_media(START + timedelta(hours=26), keep) == 1
        uow.commit()
    assert kept() == {fresh}


def test_two_senders_never_both_take_a_numbers_news(
    uow_factory: UnitOfWorkFactory, database_url: str
) -> None:
    """A digest flushed by the minute's check while a plan sends what waited first (or two
    processes): the second to take the number's news waits for the first and finds none."""
    import queue
    import threading
    import time
    from datetime import timedelta

    import pytest
    from sqlalchemy import text

    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite has one writer at a time (its transactions begin IMMEDIATE)")
    with uow_factory() as uow:
        number = uow.sms.number(A, START)
        assert number is not None
        uow.sms.hold(number.id, "sms:@K7QX", "The game is on!", START, 7)
        uow.commit()
    later = START + timedelta(minutes=10)
    pids: queue.Queue[int] = queue.Queue()
    second: list[list[tuple[str | None, str]]] = []

    def take() -> None:
        with uow_factory() as uow:
            pids.put(int(uow.session.execute(text("SELECT pg_backend_pid()")).scalar_one()))
            second.append(uow.sms.take_held(number.id, later))
            uow.commit()

    with uow_factory() as first:
        taken = first.sms.take_held(number.id, later)
        thread = threading.Thread(target=take)
        thread.start()
        pid = pids.get(timeout=10)
        deadline = time.monotonic() + 10
        waiting = None
        while waiting != "Lock" and time.monotonic() < deadline:  # it waits for the first
            with uow_factory() as look:
                waiting = look.session.execute(
                    text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid"),
                    {"pid": pid},
                ).scalar()
            time.sleep(0.005)
        assert waiting == "Lock", "the second sender waits for the first"
        first.commit()
    thread.join(10)
    assert taken == [("sms:@K7QX", "The game is on!")]
    assert second == [[]], "the news went once"


def test_a_number_read_in_a_unit_of_work_follows_its_changes_and_rollbacks(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """``by_id`` keeps what it read for the unit of work (each text planned looks its
    recipient up); a change to the number, or a rollback, must not leave it stale."""
    with uow_factory() as uow:
        made = uow.sms.number("+41790000001", START)
        assert made is not None
        first = uow.sms.by_id(made.id)
        assert first is not None and not first.opted_out
        uow.sms.opt(made.id, out=True)
        after = uow.sms.by_id(made.id)
        assert after is not None and after.opted_out
        uow.sms.play_in(made.id, "sms:@K7QX", START)
        joined = uow.sms.by_id(made.id)
        assert joined is not None and joined.current_chat == "sms:@K7QX"
        uow.sms.set_digest(made.id, 30)
        digest = uow.sms.by_id(made.id)
        assert digest is not None and digest.digest_minutes == 30
        uow.commit()
    with uow_factory() as uow:
        stored = uow.sms.by_id(made.id)
        assert stored is not None and stored.opted_out
        uow.sms.opt(made.id, out=False)
        started = uow.sms.by_id(made.id)
        assert started is not None and not started.opted_out
        uow.rollback()
        undone = uow.sms.by_id(made.id)
        assert undone is not None and undone.opted_out  # the rollback undid START
        uow.sms.forget(made.id)
        assert uow.sms.by_id(made.id) is None


def test_a_number_comes_with_what_its_persons_row_says(uow_factory: UnitOfWorkFactory) -> None:
    """Reading a text looks up the sender's name, language and whether they may be
    written to: ``number`` reads them in its own query (``person``), so they must be the
    row's, and a number never met, or just made, has none."""
    with uow_factory() as uow:
        made = uow.sms.number(A, START)
        assert made is not None and uow.sms.person(made.id) is None  # just made
        uow.commit()
    with uow_factory() as uow:
        known = uow.sms.number(A, START)
        assert known is not None and uow.sms.person(known.id) is None  # never met
        uow.chats.met(known.ref, "Ada", START, private_ok=True)
        uow.chats.set_language(known.ref, "Ada", "de", START)
        again = uow.sms.number(A, START)  # what this unit of work changed is read too
        assert again is not None
        facts = uow.sms.person(again.id)
        assert facts is not None and (facts.name, facts.language, facts.private_ok) == (
            "Ada",
            "de",
            True,
        )
        uow.rollback()
        assert uow.sms.person(known.id) is None  # forgotten with the rollback
        reread = uow.sms.number(A, START)
        assert reread is not None and uow.sms.person(reread.id) is None
