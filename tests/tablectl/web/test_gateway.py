"""The web gateway on real brokers: what a page receives, what it may send, the display rules.

The controller's side is a real MQTT client logged in as ``controller``; the pages are
WebSocket clients speaking what the pages speak.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import aiohttp
import pytest

from drivers.mqtt.client import BrokerAddress
from tablectl.web.server import MAX_FRAME_BYTES, WebServer

WAIT = 5.0


def state(table: str, seq: int, birth: int = 1, **more: Any) -> bytes:
    doc = {"v": 1, "table": table, "birth": birth, "seq": seq, "at": 0.0, "type": "state"}
    return json.dumps({**doc, "phase": "idle", **more}).encode()


def event(table: str, seq: int, birth: int = 1) -> bytes:
    doc = {"v": 1, "table": table, "birth": birth, "seq": seq, "at": 0.0, "type": "event"}
    return json.dumps({**doc, "event": "phase", "data": {}}).encode()


@pytest.fixture
def serve() -> Iterator[Callable[..., WebServer]]:
    servers: list[WebServer] = []

    def start(broker: Any, user: str | None = None) -> WebServer:
        address = BrokerAddress("127.0.0.1", broker.port)
        if user is not None:
            address = BrokerAddress("127.0.0.1", broker.port, user, f"{user}-dev")
        server = WebServer(address, "127.0.0.1", 0).start()
        servers.append(server)
        assert server.feed is not None and server.feed.link.wait_subscribed(WAIT)
        return server

    yield start
    for server in servers:
        server.stop()


async def frames_until(
    ws: aiohttp.ClientWebSocketResponse, done: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """Frames received until one satisfies ``done`` (bounded by WAIT)."""
    got: list[dict[str, Any]] = []

    async def read() -> None:
        async for message in ws:
            got.append(json.loads(message.data))
            if done(got[-1]):
                return

    await asyncio.wait_for(read(), WAIT)
    return got


def test_a_public_page_gets_the_kept_state_and_is_online_only_once_heard_live(
    mosquitto: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    controller = mqtt_client(mosquitto, "controller")
    controller.subscribe(f"tablectl/{table_id}/rebirth")
    controller.publish(f"tablectl/{table_id}/status", "online", retain=True)
    controller.publish(f"tablectl/{table_id}/state", state(table_id, 0), retain=True)
    server = serve(mosquitto, "display")

    async def page() -> None:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}/ws?table={table_id}") as ws,
        ):
            first = await frames_until(ws, lambda f: f.get("topic") == "state")
            kept = [f for f in first if f.get("topic") == "status"]
            assert kept == [
                {"table": table_id, "topic": "status", "payload": "online", "retained": True}
            ]
            # the broker's kept "online" is not enough: the server asks the controller
            controller.expect(f"tablectl/{table_id}/rebirth")
            links = [f for f in first if "gateway" in f]
            assert links and all(f["status"] != "online" for f in links)
            controller.publish(f"tablectl/{table_id}/status", "online", retain=True)
            live = await frames_until(ws, lambda f: f.get("status") == "online")
            assert live[-1]["gateway"] == "connected"

    asyncio.run(page())


def test_a_gap_in_the_public_stream_asks_for_a_rebirth(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    controller = mqtt_client(embedded_broker)
    controller.subscribe(f"tablectl/{table_id}/rebirth")
    server = serve(embedded_broker)
    controller.publish(f"tablectl/{table_id}/status", "online")
    controller.publish(f"tablectl/{table_id}/state", state(table_id, 0))
    controller.publish(f"tablectl/{table_id}/events", event(table_id, 1))
    assert not controller.messages(f"tablectl/{table_id}/rebirth")
    controller.publish(f"tablectl/{table_id}/events", event(table_id, 3))  # 2 went missing
    controller.expect(f"tablectl/{table_id}/rebirth")
    assert server.feed is not None and server.feed.tables[table_id].gaps == 1


def test_a_public_page_may_send_nothing_and_every_refusal_says_why(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    controller = mqtt_client(embedded_broker)
    controller.subscribe(f"tablectl/{table_id}/#")
    server = serve(embedded_broker)

    async def page() -> list[str]:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}/ws?table={table_id}") as ws,
        ):
            await frames_until(ws, lambda f: "history" in f)
            answers = []
            for text in (
                json.dumps({"command": {"command": "start_round"}}),
                "x" * (MAX_FRAME_BYTES + 1),
                "not json",
                json.dumps({"command": {"command": "start_round"}, "colour": "red"}),
            ):
                await ws.send_str(text)
                got = await frames_until(ws, lambda f: "refused" in f)
                answers.append(got[-1]["refused"])
            return answers

    answers = asyncio.run(page())
    assert "expected no commands from a public page" in answers[0]
    assert f"at most {MAX_FRAME_BYTES} bytes; got {MAX_FRAME_BYTES + 1} bytes" in answers[1]
    assert "got invalid JSON" in answers[2]
    assert "expected only command and ref; got colour" in answers[3]
    assert not controller.messages(f"tablectl/{table_id}/+/cmd")  # nothing was published


def test_a_seat_logs_in_as_its_user_and_gets_its_own_topics_only(
    mosquitto: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    controller = mqtt_client(mosquitto, "controller")
    controller.subscribe(f"tablectl/{table_id}/seat/+/cmd", f"tablectl/{table_id}/seat/+/presence")
    server = serve(mosquitto, "display")
    seat = f"tablectl/{table_id}/seat"
    controller.publish(f"{seat}/3/state", state(table_id, 0, seat="3"), retain=True)
    controller.publish(f"{seat}/4/state", state(table_id, 0, seat="4"), retain=True)

    async def page() -> tuple[list[dict[str, Any]], list[str], dict[str, Any]]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            login = {"role": "seat", "table": table_id, "seat": "3", "password": "wrong"}
            async with http.post(f"{server.url}/login", json=login) as r:
                refused = (r.status, (await r.json())["error"])
            login["password"] = "seat-3-dev"
            async with http.post(f"{server.url}/login", json=login) as r:
                assert r.status == 200, await r.text()
                cookie = r.headers["Set-Cookie"]
            async with http.ws_connect(f"{server.url}/ws?table={table_id}&role=seat") as ws:
                got = await frames_until(ws, lambda f: f.get("topic") == "seat/3/state")
                bet = {"command": "place_bet", "hand": "seat3", "spot": "ante", "amount": 10}
                await ws.send_json({"command": bet})
                sent = (await frames_until(ws, lambda f: "sent" in f))[-1]["sent"]
                reply = {"v": 1, "type": "reply", "id": sent["id"], "ok": True}
                controller.publish(f"{seat}/3/reply", json.dumps(reply))
                controller.publish(f"{seat}/4/reply", json.dumps({**reply, "id": "other"}))
                controller.publish(f"{seat}/3/events", event(table_id, 1))
                got += await frames_until(ws, lambda f: f.get("topic") == "seat/3/events")
        return got, [str(refused), cookie], sent

    got, notes, sent = asyncio.run(page())
    assert notes[0].startswith("(401") and "refused seat-3's login" in notes[0]
    assert "HttpOnly" in notes[1] and "SameSite=Strict" in notes[1]
    topics = [f["topic"] for f in got if "topic" in f]
    assert "seat/3/state" in topics and "seat/3/reply" in topics
    assert not [t for t in topics if t.startswith("seat/") and not t.startswith("seat/3/")]
    command = json.loads(controller.expect(f"{seat}/3/cmd").payload)
    assert command == {
        "v": 1,
        "id": sent["id"],
        "command": "place_bet",
        "hand": "seat3",
        "spot": "ante",
        "amount": 10,
    }
    controller.expect(f"{seat}/3/presence", "online")


def test_a_role_page_without_a_login_is_turned_away(
    embedded_broker: Any, table_id: str, serve: Any
) -> None:
    server = serve(embedded_broker)

    async def page() -> tuple[int, str]:
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{server.url}/ws?table={table_id}&role=dealer") as r,
        ):
            return r.status, await r.text()

    status, text = asyncio.run(page())
    assert status == 401 and "expected a login as dealer first" in text


def test_a_command_the_table_could_not_read_is_refused_by_the_server_and_never_sent(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    # each was sent, refused by the table with no id to answer (it could not read one),
    # sent twice again and then told to the page as "may or may not have been applied";
    # JSON nested past the parser's own depth stopped the page's socket with a traceback
    controller = mqtt_client(embedded_broker)
    controller.subscribe(f"tablectl/{table_id}/dealer/cmd")
    server = serve(embedded_broker)
    # a frame of the most bytes a page may send: with the table's v and id it is longer
    long_reason = "x" * (
        MAX_FRAME_BYTES - len(json.dumps({"command": {"command": "halt", "reason": ""}}))
    )
    frames = {
        "nan": '{"command": {"command": "halt", "reason": "a", "amount": NaN}, "ref": "nan"}',
        "big": json.dumps({"command": {"command": "start_round"}, "ref": "big", "n": 1e308}),
        "deep": json.dumps({"command": {"command": "halt", "reason": [[[["x"]]]]}, "ref": "deep"}),
        "long": json.dumps({"command": {"command": "halt", "reason": long_reason}}),
        "abyss": "[" * 4000,
        "good": json.dumps({"command": {"command": "start_round"}, "ref": "good"}),
    }

    async def page() -> dict[str, dict[str, Any]]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            login = {"role": "dealer", "table": table_id, "password": "any"}
            async with http.post(f"{server.url}/login", json=login) as r:
                assert r.status == 200, await r.text()
            async with http.post(f"{server.url}/login", data="[" * 2000) as r:
                abyss_login = {"status": r.status, **(await r.json())}
            answers = {"abyss-login": abyss_login}
            async with http.ws_connect(f"{server.url}/ws?table={table_id}&role=dealer") as ws:
                for name, text in frames.items():
                    await ws.send_str(text)
                    got = await frames_until(ws, lambda f: "refused" in f or "sent" in f)
                    answers[name] = got[-1]
        return answers

    answers = asyncio.run(page())
    assert answers["abyss-login"]["status"] == 400
    assert "expected a JSON object with role" in answers["abyss-login"]["error"]
    assert "expected the command's fields; got" not in str(answers)
    assert "NaN" in answers["nan"]["refused"] and "nothing was sent" in answers["nan"]["refused"]
    assert answers["nan"]["ref"] == "nan"
    assert "expected only command and ref; got n" in answers["big"]["refused"]
    assert "nested at most 3 deep" in answers["deep"]["refused"]
    assert f"of at most {MAX_FRAME_BYTES} bytes" in answers["long"]["refused"]
    assert "nothing was sent" in answers["long"]["refused"]
    assert "nested deeper than any command" in answers["abyss"]["refused"]
    assert answers["good"]["sent"]["ref"] == "good"  # the socket still takes commands
    cmds = controller.wait_messages(f"tablectl/{table_id}/dealer/cmd", 1)
    assert [json.loads(m.payload)["command"] for m in cmds] == ["start_round"]


def test_a_page_that_sends_too_fast_is_refused_the_excess(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    server = serve(embedded_broker)

    async def page() -> list[str]:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}/ws?table={table_id}") as ws,
        ):
            await frames_until(ws, lambda f: "history" in f)
            for _ in range(60):
                await ws.send_str("{}")
            got = await frames_until(ws, lambda f: "frames a second" in f.get("refused", ""))
            return [f["refused"] for f in got if "refused" in f]

    refusals = asyncio.run(page())
    assert refusals[-1].startswith("expected at most 20 frames a second; got more")
    assert all("expected {" in r for r in refusals[:40])  # the burst allowance was read


def test_a_command_without_a_reply_is_sent_again_with_its_id_then_the_page_is_told(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any, monkeypatch: Any
) -> None:
    """The answered command's resend is an hour away, so its one send does not race a busy
    machine; that its reply ended the wait is read from the link's pending commands. The
    unanswered one is resent every 0.2 s: its count and the page's refusal need no timing."""
    from tablectl.web import gateway

    links: list[gateway.RoleLink] = []
    start = gateway.RoleLink.start

    async def recorded(self: gateway.RoleLink, *args: Any) -> str | None:
        links.append(self)
        return await start(self, *args)

    monkeypatch.setattr(gateway.RoleLink, "start", recorded)
    monkeypatch.setattr(gateway, "RETRY_SECONDS", 3600.0)
    controller = mqtt_client(embedded_broker)
    controller.subscribe(f"tablectl/{table_id}/dealer/cmd")
    server = serve(embedded_broker)

    async def page() -> tuple[str, bool, str, str]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            login = {"role": "dealer", "table": table_id, "password": "any"}
            async with http.post(f"{server.url}/login", json=login) as r:
                assert r.status == 200, await r.text()
            async with http.ws_connect(f"{server.url}/ws?table={table_id}&role=dealer") as ws:
                await ws.send_json({"command": {"command": "start_round"}})
                answered = (await frames_until(ws, lambda f: "sent" in f))[-1]["sent"]["id"]
                reply = {"v": 1, "type": "reply", "id": answered, "ok": True}
                controller.publish(f"tablectl/{table_id}/dealer/reply", json.dumps(reply))
                await frames_until(ws, lambda f: f.get("topic") == "dealer/reply")
                still_waiting = answered in links[-1].pending  # the reply came before the frame
                monkeypatch.setattr(gateway, "RETRY_SECONDS", 0.2)
                await ws.send_json({"command": {"command": "no_more_bets"}, "ref": "r2"})
                lost = (await frames_until(ws, lambda f: "sent" in f))[-1]["sent"]["id"]
                told = await frames_until(ws, lambda f: f.get("ref") == "r2")
                return answered, still_waiting, lost, told[-1]["refused"]

    answered, still_waiting, lost, told = asyncio.run(page())
    assert not still_waiting
    cmds = controller.wait_messages(f"tablectl/{table_id}/+/cmd", 2 + gateway.RETRIES)
    sends = [json.loads(m.payload)["id"] for m in cmds]
    assert sends.count(answered) == 1
    assert sends.count(lost) == 1 + gateway.RETRIES
    assert f"expected the table's answer to no_more_bets (id {lost})" in told
    assert f"got none after {1 + gateway.RETRIES} sends" in told


def test_refused_logins_from_one_address_are_bounded(
    mosquitto: Any, table_id: str, serve: Any, monkeypatch: Any
) -> None:
    from tablectl.web import server as web_server

    monkeypatch.setattr(web_server, "LOGIN_FAILURES", 3)
    server = serve(mosquitto, "display")

    async def logins() -> list[tuple[int, str]]:
        out = []
        async with aiohttp.ClientSession() as http:
            for password in ("a", "b", "c", "seat-3-dev"):
                login = {"role": "seat", "table": table_id, "seat": "3", "password": password}
                async with http.post(f"{server.url}/login", json=login) as r:
                    out.append((r.status, (await r.json()).get("error", "")))
        return out

    answers = asyncio.run(logins())
    assert [status for status, _ in answers] == [401, 401, 401, 429]
    assert "expected at most 3 refused logins a minute from one address; got 3" in answers[3][1]


def test_refused_logins_sent_at_once_are_each_counted(
    mosquitto: Any, table_id: str, serve: Any, monkeypatch: Any
) -> None:
    # counted only once the broker had answered, a burst of 50 at once counted as one:
    # 351 wrong passwords reached the broker in a minute where 10 may
    from tablectl.web import server as web_server

    monkeypatch.setattr(web_server, "LOGIN_FAILURES", 3)
    server = serve(mosquitto, "display")

    async def burst() -> list[int]:
        async with aiohttp.ClientSession() as http:

            async def one(i: int) -> int:
                login = {"role": "seat", "table": table_id, "seat": "3", "password": f"w{i}"}
                async with http.post(f"{server.url}/login", json=login) as r:
                    return r.status

            return list(await asyncio.gather(*(one(i) for i in range(12))))

    statuses = asyncio.run(burst())
    assert statuses.count(401) == 3 and statuses.count(429) == 9


def test_a_seat_whose_pages_all_closed_is_away_and_back_when_one_opens(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any, monkeypatch: Any
) -> None:
    from tablectl.web import server as web_server

    monkeypatch.setattr(web_server, "AWAY_SECONDS", 0.2)
    controller = mqtt_client(embedded_broker)
    presence = f"tablectl/{table_id}/seat/5/presence"
    controller.subscribe(presence)
    server = serve(embedded_broker)

    async def page() -> list[bytes]:
        seen = []
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            login = {"role": "seat", "table": table_id, "seat": "5", "password": "any"}
            async with http.post(f"{server.url}/login", json=login) as r:
                assert r.status == 200, await r.text()
            controller.expect(presence, "online")
            for _ in range(2):
                async with http.ws_connect(f"{server.url}/ws?table={table_id}&role=seat") as ws:
                    await frames_until(ws, lambda f: f.get("link") == "seat 5")
                controller.expect(presence, "offline")
                seen = [m.payload for m in controller.messages(presence)]
                controller.clear()
        return seen

    assert asyncio.run(page()) == [b"online", b"offline"]  # the second time: back, then away


def test_a_page_shows_connecting_while_the_broker_is_away(
    mqtt_client: Any, table_id: str, serve: Any
) -> None:
    from drivers.mqtt.embedded import EmbeddedBroker

    broker = EmbeddedBroker().start()
    try:
        controller = mqtt_client(broker)
        server = serve(broker)
        controller.publish(f"tablectl/{table_id}/status", "online")

        async def page() -> list[dict[str, Any]]:
            async with (
                aiohttp.ClientSession() as http,
                http.ws_connect(f"{server.url}/ws?table={table_id}") as ws,
            ):
                await frames_until(ws, lambda f: f.get("status") == "online")
                broker.stop()
                return await frames_until(ws, lambda f: f.get("gateway") == "broker-down")

        got = asyncio.run(page())
    finally:
        broker.stop()
    assert got[-1]["status"] == "connecting" and got[-1]["link"] == "public"


def test_logging_out_ends_the_seats_link_and_says_it_is_away(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    controller = mqtt_client(embedded_broker)
    presence = f"tablectl/{table_id}/seat/6/presence"
    controller.subscribe(presence)
    server = serve(embedded_broker)

    async def session() -> list[int]:
        statuses = []
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            login = {"role": "seat", "table": table_id, "seat": "6", "password": "any"}
            async with http.post(f"{server.url}/login", json=login) as r:
                statuses.append(r.status)
            async with http.get(f"{server.url}/session?role=seat") as r:
                statuses.append(r.status)
                assert (await r.json())["seat"] == "6"
            async with http.post(f"{server.url}/logout?role=seat") as r:
                statuses.append(r.status)
            async with http.get(f"{server.url}/session?role=seat") as r:
                statuses.append(r.status)
        return statuses

    assert asyncio.run(session()) == [200, 200, 200, 401]
    controller.expect(presence, "offline")
    assert [m.payload for m in controller.messages(presence)] == [b"online", b"offline"]


def test_a_table_the_broker_never_heard_is_said_unheard_not_connecting_for_ever(
    mosquitto: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    """A table the server serves a journal of but that never ran on this broker: no status
    is kept for it, so a page would wait "connecting" for ever (the pit at 3 a.m. cannot
    tell a table starting from one that is not there). Once the broker has had time to send
    its kept copies, the page is told the table is unheard; a word from the table ends it."""
    controller = mqtt_client(mosquitto, "controller")
    server = serve(mosquitto, "display")
    unheard = f"{table_id}-never"

    async def page(table: str) -> list[dict[str, Any]]:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}/ws?table={table}") as ws,
        ):
            return await frames_until(ws, lambda f: f.get("status") == "unheard")

    first = asyncio.run(page(unheard))
    links = [f for f in first if "gateway" in f]
    assert links[-1] == {
        "gateway": "connected",
        "link": "public",
        "table": unheard,
        "status": "unheard",
        "reason": "",
    }
    # a page joining later is told at once (its first frame): the wait is over for the feed
    again = asyncio.run(page(f"{table_id}-other"))
    assert again[0]["status"] == "unheard"

    async def heard() -> list[dict[str, Any]]:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}/ws?table={unheard}") as ws,
        ):
            await frames_until(ws, lambda f: f.get("status") == "unheard")
            controller.publish(f"tablectl/{unheard}/status", "online", retain=True)
            return await frames_until(ws, lambda f: f.get("status") == "online")

    assert asyncio.run(heard())[-1]["gateway"] == "connected"


def test_pages_naming_made_up_tables_never_keep_a_real_one_out(
    embedded_broker: Any, mqtt_client: Any, table_id: str, serve: Any
) -> None:
    """Tables named by pages alone were kept for good: 64 made-up ids filled the server's
    tables, and a real table that then spoke was never followed until a restart."""
    controller = mqtt_client(embedded_broker)
    server = serve(embedded_broker)
    assert server.feed is not None
    feed = server.feed
    feed.max_tables = 3
    real = f"{table_id}-real"

    async def pages() -> tuple[list[str], list[str], dict[str, Any]]:
        async with aiohttp.ClientSession() as http:
            made_up = [
                await http.ws_connect(f"{server.url}/ws?table={table_id}-junk{i}") for i in range(4)
            ]
            for ws in made_up[:3]:
                await frames_until(ws, lambda f: "history" in f)
            beyond = (await frames_until(made_up[3], lambda f: "refused" in f))[-1]["refused"]
            controller.publish(f"tablectl/{real}/status", "online")
            controller.publish(f"tablectl/{real}/state", state(real, 0))
            # the page of the made-up table named first, which gave way, is told
            told = (await frames_until(made_up[0], lambda f: "refused" in f))[-1]["refused"]
            followed = sorted(feed.tables)
            for ws in made_up:
                await ws.close()
            async with http.ws_connect(f"{server.url}/ws?table={real}") as ws:
                status = (await frames_until(ws, lambda f: f.get("status") == "online"))[-1]
            return [beyond, told], followed, status

    refusals, followed, status = asyncio.run(pages())
    assert refusals == ["expected at most 3 tables; got more"] * 2
    assert followed == sorted([real, f"{table_id}-junk1", f"{table_id}-junk2"])
    assert status["table"] == real
    # the made-up tables' pages closed, nothing of them is kept
    assert sorted(feed.tables) == [real]


def test_a_login_or_a_roles_page_from_another_sites_page_is_refused(
    embedded_broker: Any, table_id: str, serve: Any
) -> None:
    """A page of another site (another port or subdomain, which SameSite does not cover)
    could log a browser in, or open the dealer's socket on its cookie and send halt."""
    server = serve(embedded_broker)
    evil = {"Origin": "http://evil.example:9999"}

    async def tries() -> dict[str, Any]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            login = {"role": "dealer", "table": table_id, "password": "any"}
            async with http.post(f"{server.url}/login", json=login, headers=evil) as r:
                foreign = (r.status, (await r.json())["error"])
            ours = {"Origin": server.url}
            async with http.post(f"{server.url}/login", json=login, headers=ours) as r:
                assert r.status == 200, await r.text()
            dealer = f"{server.url}/ws?table={table_id}&role=dealer"
            try:
                await http.ws_connect(dealer, headers=evil)
                socket: Any = "opened"
            except aiohttp.WSServerHandshakeError as error:
                socket = (error.status, error.message)
            async with http.ws_connect(dealer, headers=ours) as ws:
                await ws.send_json({"command": {"command": "start_round"}})
                sent = (await frames_until(ws, lambda f: "sent" in f))[-1]
            async with http.ws_connect(f"{server.url}/ws?table={table_id}", headers=evil) as ws:
                public = (await frames_until(ws, lambda f: "history" in f))[-1]
        return {"login": foreign, "socket": socket, "sent": sent, "public": public}

    got = asyncio.run(tries())
    assert got["login"][0] == 403
    assert "expected a page of this server" in got["login"][1]
    assert "got one of 'http://evil.example:9999'" in got["login"][1]
    assert got["socket"][0] == 403
    assert got["sent"]["sent"]["command"] == "start_round"  # its own pages work
    assert got["public"]["table"] == table_id  # public pages may be shown anywhere


def test_logins_awaiting_the_broker_and_pages_open_are_bounded(
    embedded_broker: Any, table_id: str, serve: Any, monkeypatch: Any
) -> None:
    from tablectl.web import gateway
    from tablectl.web import server as web_server

    start = gateway.RoleLink.start

    async def slow(self: gateway.RoleLink, *args: Any) -> str | None:
        await asyncio.sleep(0.5)  # a broker slow to answer: the logins overlap
        return await start(self, *args)

    monkeypatch.setattr(gateway.RoleLink, "start", slow)
    monkeypatch.setattr(web_server, "LOGINS_AT_ONCE", 2)
    monkeypatch.setattr(web_server, "MAX_PAGES", 2)
    server = serve(embedded_broker)

    async def tries() -> tuple[list[tuple[int, str]], Any]:
        async with aiohttp.ClientSession() as http:

            async def one(seat: int) -> tuple[int, str]:
                login = {"role": "seat", "table": table_id, "seat": seat, "password": "any"}
                async with http.post(f"{server.url}/login", json=login) as r:
                    return r.status, (await r.json()).get("error", "")

            logins = list(await asyncio.gather(*(one(seat) for seat in range(1, 7))))
            url = f"{server.url}/ws?table={table_id}"
            async with http.ws_connect(url), http.ws_connect(url):
                try:
                    await http.ws_connect(url)
                    third: Any = "opened"
                except aiohttp.WSServerHandshakeError as error:
                    third = error.status
        return logins, third

    logins, third = asyncio.run(tries())
    assert sorted(status for status, _ in logins) == [200, 200, 503, 503, 503, 503]
    busy = [why for status, why in logins if status == 503]
    assert all("expected at most 2 logins awaiting the broker at once" in why for why in busy)
    assert third == 503


def test_a_malformed_request_is_logged_in_one_line_without_a_traceback(
    embedded_broker: Any, serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """aiohttp logged a request line of 100 kB as an error with its traceback (the
    server's folders in it): a client could fill the log with them."""
    import socket

    server = serve(embedded_broker)
    host, port = server.url.removeprefix("http://").split(":")
    with caplog.at_level(logging.WARNING, logger="aiohttp.server"):
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = s.recv(200)
        deadline = time.monotonic() + 5
        while not caplog.records and time.monotonic() < deadline:
            time.sleep(0.05)
    assert answer.startswith(b"HTTP/1.0 400") or answer.startswith(b"HTTP/1.1 400")
    logged = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert len(logged) == 1 and logged[0].exc_info is None
    assert logged[0].getMessage().startswith("refused a malformed request (400 LineTooLong)")
    assert "Traceback" not in caplog.text


def test_a_request_head_sent_slowly_is_cut_off_but_a_page_stays_open(
    embedded_broker: Any, serve: Any, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request's head sent one header every half second (or nothing at all) kept its
    connection, and the server's file for it, for aiohttp's hour: enough of them would
    leave none for the pages. Each is closed :data:`HEAD_SECONDS` after it opened; a
    page's socket, open longer than that, stays."""
    import socket

    from tablectl.web import server as web_server

    monkeypatch.setattr(web_server, "HEAD_SECONDS", 1.0)
    server = serve(embedded_broker)
    host, port = server.url.removeprefix("http://").split(":")

    async def page_open_past_the_bound() -> bool:
        url = f"{server.url}/ws?table={table_id}"
        async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
            await asyncio.sleep(2.5)
            return not ws.closed

    slow = socket.create_connection((host, int(port)), timeout=5)
    silent = socket.create_connection((host, int(port)), timeout=5)
    try:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        start = time.monotonic()
        closed_after = None
        for i in range(20):  # a header every half second, never the blank line
            try:
                slow.sendall(f"X-{i}: y\r\n".encode())
            except OSError:
                closed_after = time.monotonic() - start
                break
            slow.settimeout(0.5)
            try:
                if slow.recv(100) == b"":
                    closed_after = time.monotonic() - start
                    break
            except TimeoutError:
                pass
            except ConnectionResetError:  # closed with our headers unread: a reset
                closed_after = time.monotonic() - start
                break
        assert closed_after is not None and closed_after < 5, closed_after
        silent.settimeout(5)
        try:  # closed too, having sent nothing (a timeout here fails the test)
            silent_closed = silent.recv(100) == b""
        except ConnectionResetError:  # a reset: closed with nothing to answer
            silent_closed = True
        assert silent_closed
    finally:
        slow.close()
        silent.close()
    assert asyncio.run(page_open_past_the_bound())


def test_a_login_sent_in_pieces_is_read_whole_and_a_stalled_one_is_refused(
    embedded_broker: Any, serve: Any, table_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One read of the body returned its first piece only: a login whose body reached the
    server in two pieces was refused as no JSON. A body that stops short waited for ever."""
    import socket

    from tablectl.web import server as web_server

    monkeypatch.setattr(web_server, "HEAD_SECONDS", 1.0)
    server = serve(embedded_broker)
    host, port = server.url.removeprefix("http://").split(":")
    body = json.dumps({"role": "dealer", "table": table_id, "password": "any"}).encode()
    head = (
        f"POST /login HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()

    def answer(pieces: list[bytes], pause: float) -> bytes:
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(head)
            for piece in pieces:
                s.sendall(piece)
                time.sleep(pause)
            return s.recv(4096)

    whole = answer([body[:10], body[10:]], 0.3)
    assert whole.startswith(b"HTTP/1.1 200"), whole
    stalled = answer([body[:10]], 0.0)  # and nothing more
    assert stalled.startswith(b"HTTP/1.1 408"), stalled
    assert b"expected the login's body within 1 s" in stalled
