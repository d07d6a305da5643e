"""The browser table: its JSON API (refusals change nothing, other sites' pages refused, a
request's work bounded) and, in a real headless Chromium, a whole hand (pass three cards, play
only legal cards, ask for a hint, reach the hand's score), a recorded replay played back with a
seat name that is HTML drawn as text, and a page of another site that cannot start a game."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import json
import re
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette 1.x prefers httpx2 to httpx; either drives the app
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from web_browser import browser, last_legal_key, names, persons_turn, press, serving, text, wait  # noqa: E402

from hearts_env.agents.human.web import replays  # noqa: E402
from hearts_env.agents.human.web.app import create_app  # noqa: E402
from hearts_env.agents.human.web.tables import WebError, WebTables  # noqa: E402

BASE = "http://127.0.0.1:8000"
NDJSON = {"content-type": "application/x-ndjson"}


def make_client(**options) -> TestClient:
    return TestClient(create_app(**options), base_url=BASE)


@pytest.fixture()
def client() -> TestClient:
    return make_client(seed=0)


def new_game(client: TestClient, **request) -> dict:
    response = client.post("/api/games", json={"opponents": ["simple"], **request})
    assert response.status_code == 200, response.json()
    return response.json()


def refused(response, status: int, words: str) -> None:
    assert response.status_code == status and words in response.json()["error"], response.json()


def test_a_whole_hand_through_the_api(client: TestClient) -> None:
    view = new_game(client, seat=2, rules={"target_score": 0})
    me = view["seats"][2]
    assert view["waiting_for"] == "pass" and len(me["hand_names"]) == 13
    others = [s for s in view["seats"] if s["seat"] != 2]
    assert all(s["hand"] == [] and s["picked"] == [] and s["held"] + s["picks"] == 13 for s in others)  # none leak
    assert [s["picks"] for s in view["seats"]] == [3, 3, 0, 0]  # seats 0 and 1 picked before the person
    view = client.post(
        f"/api/games/{view['id']}/pass", json={"cards": me["hand_names"][-3:], "turn": view["turn"]}
    ).json()
    while view["waiting_for"] == "play":
        assert view["legal_names"] and set(view["legal_names"]) <= set(view["seats"][2]["hand_names"])
        response = client.post(
            f"/api/games/{view['id']}/play", json={"card": view["legal_names"][-1], "turn": view["turn"]}
        )
        view = response.json()
    assert view["waiting_for"] == "game over" and view["turn"] == 64
    assert sum(s["last_hand_points"] for s in view["seats"]) in (26, 78)  # 78: a moon added to the others


def test_refusals_change_nothing(client: TestClient) -> None:
    view = new_game(client, seat=0)
    url, turn = f"/api/games/{view['id']}", view["turn"]
    hand = view["seats"][0]["hand_names"]
    not_held = next(c for c in ("2C", "AH", "QS", "3D", "KS") if c not in hand)
    refused(client.post(f"{url}/play", json={"card": hand[0], "turn": turn}), 409, "waits for 'pass', not play")
    refused(client.post(f"{url}/pass", json={"cards": hand[:3], "turn": turn + 1}), 409, "out of turn")
    refused(client.post(f"{url}/pass", json={"cards": hand[:2], "turn": turn}), 400, "pick 3 card names")
    refused(
        client.post(f"{url}/pass", json={"cards": [hand[0], hand[1], not_held], "turn": turn}), 400, "you do not hold"
    )
    refused(
        client.post(f"{url}/pass", json={"cards": [hand[0], hand[0], hand[1]], "turn": turn}), 400, "already picked"
    )
    refused(client.post(f"{url}/pass", json={"cards": ["ZZ", "QS", "AS"], "turn": turn}), 400, "not a card")
    refused(client.post(f"{url}/pass", content=b"{not json", headers={"content-type": "application/json"}), 400, "JSON")
    refused(client.post(f"{url}/pass", json={"cards": hand[:3], "turn": "0"}), 400, "turn must be the int")
    refused(client.post("/api/games/nope/pass", json={"cards": hand[:3], "turn": turn}), 404, "no game 'nope'")
    assert client.get(url).json() == view  # nothing changed
    view = client.post(f"{url}/pass", json={"cards": hand[:3], "turn": turn}).json()
    while view["waiting_for"] == "play":
        illegal = [c for c in view["seats"][0]["hand_names"] if c not in view["legal_names"]]
        assert set(view["illegal"]) == set(illegal)  # each with its reason, for the page to say
        if illegal:
            refused(client.post(f"{url}/play", json={"card": illegal[0], "turn": view["turn"]}), 400, "you cannot play")
            assert (
                view["illegal"][illegal[0]]
                in client.post(f"{url}/play", json={"card": illegal[0], "turn": view["turn"]}).json()["error"]
            )
            assert client.get(url).json() == view
            return
        view = client.post(f"{url}/play", json={"card": view["legal_names"][0], "turn": view["turn"]}).json()
    pytest.fail("no illegal card came up in a whole hand")


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        ({"opponents": ["nobody"]}, "unknown agent 'nobody'"),
        ({"opponents": ["pimc:rollout=__import__('os')"]}, "option 'rollout' is not one a request may set"),
        ({"opponents": ["pimc:worlds=[1]"]}, "must be a number"),
        ({"opponents": ["pimc:worlds=100000"]}, "worlds=100000 is outside this server's range 1..256"),
        ({"opponents": ["pimc:worlds=4096,rollouts=4096"]}, "outside this server's range"),
        ({"opponents": ["pimc:worlds=256,rollouts=4"]}, "worlds x rollouts = 1024, more than this server's 512"),
        ({"opponents": ["pimc-ppo:top_k=1e300"]}, "top_k=1e+300 is outside"),
        ({"opponents": ["pimc:proposals=1e9"]}, "outside this server's range"),
        ({"opponents": ["pimc:proposals=2.5"]}, "agent 'pimc:proposals=2.5': proposals must be an int"),
        ({"opponents": ["trained:path=/etc"]}, "agent 'trained' is not offered by this server: it needs path="),
        ({"opponents": ["program:command=ls"]}, "agent 'program' is not offered by this server: it needs command="),
        ({"opponents": ["sb3"]}, "agent 'sb3' is not offered by this server"),
        ({"opponents": ["heuristic:worlds=3"]}, "agent 'heuristic:worlds=3': heuristic takes no option worlds="),
        ({"opponents": ["pimc:top_k=3"]}, "agent 'pimc:top_k=3': pimc takes no option top_k="),  # pimc-ppo's
        ({"opponents": ["ppo"], "rules": {"num_players": 5}}, "cannot play these rules"),
        ({"rules": {"moon": "never"}}, "rules: moon must be one of"),
        ({"rules": {"num_players": 4, "colour": 1}}, "unknown rules knob colour"),
        ({"seat": 7}, "seat must be in 0..3"),
        ({"seed": -1}, "seed must be an int"),
        ({"opponents": ["simple", "simple"]}, "give 1 agent for every other seat, or 3"),
        ({"cheat": True}, "unknown field cheat"),
    ],
)
def test_new_games_refuse_bad_requests(client: TestClient, request_: dict, words: str) -> None:
    response = client.post("/api/games", json=request_)
    refused(response, 400, words)
    error = response.json()["error"]
    assert "\n" not in error and "__init__" not in error and "Traceback" not in error  # one line, no Python


def test_trained_path_only_inside_a_policy_folder() -> None:
    from hearts_env.agents.learned.trained import SHIPPED_DIR

    client = make_client(policy_dirs=[str(SHIPPED_DIR)])
    view = new_game(client, opponents=[f"trained:path={SHIPPED_DIR / 'ppo'}"])
    assert view["agents"]["1"].startswith("trained:path=")
    refused(client.post("/api/games", json={"opponents": ["trained:path=/etc"]}), 400, "path= must lie inside")
    refused(client.post("/api/games", json={"opponents": ["trained"]}), 400, "agent 'trained' needs path=")


def test_the_options_offer_only_agents_a_request_can_build(tmp_path: Path) -> None:
    """No ``program`` (a request starts no program); ``trained`` and ``sb3`` only with a policy
    folder; and every agent offered builds from its bare name."""
    client = make_client()
    offered = client.get("/api/options").json()["agents"]
    assert "program" not in offered and "trained" not in offered and "sb3" not in offered
    assert {"random", "simple", "heuristic", "pimc", "pimc-ppo", "ppo"} <= set(offered)
    for spec in offered:
        new_game(client, seat=0, opponents=[spec])  # the person passes first: the agents are only built
    with_folder = make_client(policy_dirs=[str(tmp_path)]).get("/api/options").json()["agents"]
    assert set(with_folder) == {*offered, "trained", "sb3"}


def test_a_refused_new_game_leaves_the_old_one_in_play(client: TestClient) -> None:
    """The game a new one replaces is dropped only once the new one is dealt."""
    old = new_game(client, seat=0)
    url = f"/api/games/{old['id']}"
    typo = client.post("/api/games", json={"opponents": ["heuristc"], "replaces": old["id"]})
    refused(typo, 400, "unknown agent 'heuristc'")
    assert client.get(url).json() == old
    hand = old["seats"][0]["hand_names"]
    assert client.post(f"{url}/pass", json={"cards": hand[:3], "turn": old["turn"]}).status_code == 200
    new = new_game(client, replaces=old["id"])
    assert list(client.app.state.tables.games) == [new["id"]]
    refused(client.get(url), 404, "no game")
    refused(client.post("/api/games", json={"replaces": 7}), 400, "replaces must be the id of a game")


def test_hints_show_the_agents_reasons(client: TestClient) -> None:
    view = new_game(client, seat=0, opponents=["ppo"], seed=4)
    url = f"/api/games/{view['id']}"
    hint = client.post(f"{url}/hint", json={"agent": "ppo", "turn": view["turn"]}).json()
    probabilities = hint["probabilities"]
    assert hint["card"] in view["seats"][0]["hand_names"] and set(probabilities) == set(view["legal_names"])
    assert abs(sum(probabilities.values()) - 1) < 1e-3 and max(probabilities, key=probabilities.get) == hint["card"]
    family = client.post(f"{url}/hint", json={"agent": "ppo-family", "turn": view["turn"]}).json()
    assert set(family["probabilities"]) == set(view["legal_names"])  # its network of the table explains it
    view = client.post(f"{url}/pass", json={"cards": view["seats"][0]["hand_names"][:3], "turn": view["turn"]}).json()
    while len(view["legal_names"]) < 2:
        view = client.post(f"{url}/play", json={"card": view["legal_names"][0], "turn": view["turn"]}).json()
    hint = client.post(f"{url}/hint", json={"agent": "pimc-random:worlds=8", "turn": view["turn"]}).json()
    assert set(hint["values"]) == set(view["legal_names"]) and hint["card"] in view["legal_names"]
    refused(client.post(f"{url}/hint", json={"agent": "ppo:rollout=1", "turn": view["turn"]}), 400, "hint: agent")
    for worlds in range(2, 12):  # each spec builds an agent; the game keeps only a few
        client.post(f"{url}/hint", json={"agent": f"pimc-random:worlds={worlds}", "turn": view["turn"]})
    table = client.app.state.tables.games[view["id"]]
    assert list(table.hint_agents) == [f"pimc-random:worlds={w}" for w in range(8, 12)]


def test_several_games_apart_and_idle_ones_dropped() -> None:
    now = [0.0]
    tables = WebTables(seed=0, idle_seconds=60, max_games=2, clock=lambda: now[0])
    a, b = tables.new({"opponents": ["random"]}), tables.new({"opponents": ["random"]})
    assert a.id != b.id and a.state is not b.state
    with pytest.raises(ValueError, match="holds 2 games"):
        tables.new({})
    now[0] = 30
    tables.get(a.id)  # a is used; b idles
    now[0] = 80
    assert tables.get(a.id) is a
    with pytest.raises(ValueError, match="no game .* 1 idle minutes"):
        tables.get(b.id)


def test_a_full_server_lets_a_game_be_replaced_once() -> None:
    tables = WebTables(seed=0, max_games=2)
    a, b = tables.new({"opponents": ["random"]}), tables.new({"opponents": ["random"]})
    with pytest.raises(ValueError, match="holds 2 games"):
        tables.new({"replaces": "no-such-game"})  # replaces nothing held: a third game
    c = tables.new({"opponents": ["random"], "replaces": a.id})  # in a's place
    assert set(tables.games) == {b.id, c.id}
    tables.replacing.add(b.id)  # b is being replaced by a game being dealt: it frees no second place
    with pytest.raises(ValueError, match="holds 2 games"):
        tables.new({"replaces": b.id})
    assert set(tables.games) == {b.id, c.id}


def test_replays_upload_and_steps(client: TestClient, recorded_match: Path) -> None:
    body = recorded_match.read_bytes()
    summary = client.post("/api/replays?name=games.jsonl", content=body, headers=NDJSON).json()
    assert len(summary["games"]) == 8
    view = client.get(f"/api/replays/{summary['id']}/games/1/steps/0").json()
    assert view["step"] == 0 and len(view["hand_starts"]) > 1 and all(s["face_up"] for s in view["seats"])
    later = client.get(f"/api/replays/{summary['id']}/games/1/steps/{view['hand_starts'][1]}").json()
    assert later["hand_number"] == 2
    last = client.get(f"/api/replays/{summary['id']}/games/1/steps/{view['steps'] - 1}").json()
    assert last["game_over"]
    refused(client.get(f"/api/replays/{summary['id']}/games/1/steps/{view['steps']}"), 400, "step must be in")
    refused(client.post("/api/replays", content=body[:-30], headers=NDJSON), 400, "truncated")
    refused(client.post("/api/replays", content=body), 415, "must be sent as application/x-ndjson")
    for name in ("<img src=x onerror=alert(1)>.jsonl", "", "a" * 101, "../../etc/passwd"):
        refused(client.post("/api/replays", params={"name": name}, content=body, headers=NDJSON), 400, "name:")
    assert [r["id"] for r in client.get("/api/replays").json()["replays"]] == [summary["id"]]


def test_uploads_are_bounded(monkeypatch: pytest.MonkeyPatch, recorded_match: Path) -> None:
    """At most MAX_UPLOADS_AT_ONCE read at a time; those kept at most MAX_KEPT_BYTES together."""
    store = replays.Replays()

    async def hold_all() -> None:
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(replays.MAX_UPLOADS_AT_ONCE):
                await stack.enter_async_context(store.uploading())
            with pytest.raises(WebError, match="uploads are being read") as refused_:
                await stack.enter_async_context(store.uploading())
            assert refused_.value.status == 503
        async with store.uploading():  # the places are free again
            pass

    asyncio.run(hold_all())
    body = recorded_match.read_bytes()
    monkeypatch.setattr(replays, "MAX_KEPT_BYTES", 2 * len(body))
    ids = [store.upload(body, f"r{i}.jsonl") for i in range(4)]
    assert list(store.replays) == ids[-2:] and sum(store.sizes.values()) == 2 * len(body)


# ---------------------------------------------------------------------------------------------
# Other sites' pages


@pytest.mark.parametrize(
    ("headers", "words"),
    [
        ({"origin": "http://evil.example", "content-type": "text/plain"}, "another site"),
        ({"origin": "http://evil.example", "content-type": "application/json"}, "another site"),
        ({"origin": "null", "content-type": "application/json"}, "another site"),
        ({"origin": "http://127.0.0.1:9999", "content-type": "application/json"}, "another site"),
        ({"sec-fetch-site": "cross-site", "content-type": "application/json"}, "cross-site request"),
        ({"sec-fetch-site": "same-site", "content-type": "application/json"}, "same-site request"),
        ({"host": "evil.example:8000", "content-type": "application/json"}, "answers only to"),
    ],
)
def test_other_sites_cannot_act_for_the_person(client: TestClient, headers: dict, words: str) -> None:
    view = new_game(client)
    url = f"/api/games/{view['id']}"
    for method, path, body in [
        ("POST", "/api/games", "{}"),
        ("POST", f"{url}/next", json.dumps({"turn": view["turn"]})),
        ("DELETE", url, None),
        ("POST", "/api/replays", "{}"),
    ]:
        refused(client.request(method, path, content=body, headers=headers), 403, words)
    assert list(client.app.state.tables.games) == [view["id"]] and client.get(url).json() == view


def test_a_simple_cross_site_request_is_not_read() -> None:
    """Without Origin (an old browser, a form), a body a page may send without preflight is refused."""
    client = make_client()
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {"content-type": content_type} if content_type else {}
        refused(client.post("/api/games", content=b"{}", headers=headers), 415, "must be sent as application/json")
    assert not client.app.state.tables.games


def test_a_page_of_its_own_origin_and_a_rebound_host() -> None:
    client = make_client()
    same = {"origin": BASE, "sec-fetch-site": "same-origin"}
    assert client.post("/api/games", json={"opponents": ["simple"]}, headers=same).status_code == 200
    refused(client.get("/api/options", headers={"host": "attacker.example"}), 403, "answers only to")
    anywhere = TestClient(create_app(host="0.0.0.0"), base_url="http://192.168.1.5:8000")
    assert anywhere.get("/api/options").status_code == 200  # listening everywhere: any host name
    refused(anywhere.post("/api/games", json={}, headers={"origin": "http://evil.example"}), 403, "another site")


def test_every_response_forbids_scripts_from_elsewhere(client: TestClient) -> None:
    for path in ("/", "/static/table.js", "/api/options", "/api/games/nope"):
        headers = client.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        assert headers["x-content-type-options"] == "nosniff", path


def test_the_games_cap_holds_under_concurrent_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    import time as time_

    from hearts_env.agents.human.web import tables as tables_module

    real = tables_module.WebTable.__init__

    def slow(self, *args, **kwargs) -> None:  # a slow deal: every request checks the cap before any game is held
        time_.sleep(0.2)
        real(self, *args, **kwargs)

    monkeypatch.setattr(tables_module.WebTable, "__init__", slow)
    tables = WebTables(max_games=6)
    outcomes: list[object] = []

    def start() -> None:
        try:
            outcomes.append(tables.new({"opponents": ["simple"]}))
        except WebError as error:
            outcomes.append(error.status)

    threads = [threading.Thread(target=start) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tables.games) == 6 and outcomes.count(503) == 10 and tables.dealing == 0


# ---------------------------------------------------------------------------------------------
# In a real browser


@pytest.mark.browser
def test_a_hand_and_a_replay_in_chromium(tmp_path: Path, recorded_match: Path) -> None:
    from selenium.webdriver.common.by import By

    app = create_app(seed=0)
    with serving(app) as url, browser(tmp_path) as driver:
        driver.get(url)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
        field = driver.find_element(By.ID, "opponents")
        field.clear()
        field.send_keys("ppo")
        driver.find_element(By.ID, "start").click()
        cards = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card.legal"), "the deal")
        assert "Pick 3 cards" in driver.find_element(By.ID, "prompt").text
        passed = [c.get_attribute("data-card") for c in cards[:3]]
        for card in cards[:3]:
            card.click()
        assert driver.find_element(By.ID, "pass-button").is_enabled()
        driver.find_element(By.ID, "pass-button").click()

        def held(d) -> set[str]:
            return names(d, "#hand .card")

        wait(driver, lambda d: len(held(d)) == 13 and not set(passed) & held(d), "the passed cards gone")
        table = next(iter(app.state.tables.games.values()))
        hinted = False
        for _ in range(14):

            def my_turn(d):
                if d.find_element(By.ID, "hand-result").is_displayed():
                    return "over"
                return (
                    d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
                    and "play" in d.find_element(By.ID, "prompt").text
                    and d.find_element(By.ID, "prompt").text.startswith("Your turn")
                )

            if wait(driver, my_turn, "the person's turn") == "over":
                break
            status = driver.find_element(By.ID, "status").text
            legal = names(driver, "#hand .card.legal")
            assert legal == set(table.view()["legal_names"])  # the server's legal cards, and only those
            illegal = driver.find_elements(By.CSS_SELECTOR, "#hand .card.illegal")
            if illegal:  # not playable: a click sends nothing, and the page says why
                illegal[0].click()
                time.sleep(0.2)
                assert driver.find_element(By.ID, "status").text == status
                assert "You cannot play the" in text(driver, "alert")
            if not hinted:
                driver.find_element(By.ID, "hint-button").click()
                shown = wait(driver, lambda d: d.find_elements(By.ID, "hint-card"), "the hint")
                assert "ppo would play" in shown[0].text and shown[0].text.split()[-1] in legal
                assert driver.find_elements(By.CSS_SELECTOR, "#hint-output table tr")  # the probabilities
                hinted = True
            driver.find_element(By.CSS_SELECTOR, "#hand .card.legal").click()
            wait(driver, lambda d, s=status: d.find_element(By.ID, "status").text != s, "the next view")
        assert hinted
        assert driver.find_element(By.ID, "hand-result-title").text == "Hand 1 scored"
        shown = [int(td.text) for td in driver.find_elements(By.CSS_SELECTOR, "#hand-result-scores .hand-points")]
        assert shown == table.state.last_hand_points[0].tolist()

        driver.find_element(By.ID, "show-replay").click()
        driver.find_element(By.ID, "replay-file").send_keys(str(recorded_match))
        step = lambda d: d.find_element(By.ID, "replay-step").text  # noqa: E731
        wait(driver, lambda d: step(d).startswith("step 0 of"), "the replay")
        for _ in range(3):
            driver.find_element(By.ID, "replay-next").click()
        wait(driver, lambda d: step(d).startswith("step 3 of"), "three steps forward")
        driver.find_element(By.ID, "replay-prev").click()
        wait(driver, lambda d: step(d).startswith("step 2 of"), "a step back")
        from selenium.webdriver.support.ui import Select

        hands = Select(driver.find_element(By.ID, "replay-hand"))
        start = int(hands.options[1].get_attribute("value"))
        hands.select_by_index(1)
        wait(driver, lambda d: step(d).startswith(f"step {start} of"), "the second hand")
        assert "Hand 2" in driver.find_element(By.CSS_SELECTOR, "#replay-table .info").text
        for pts in driver.find_elements(By.CSS_SELECTOR, "#replay-table .pts"):  # the score apart from points taken
            assert re.match(r"score -?\d+ · took \d+", pts.text), pts.text


@pytest.mark.browser
def test_html_names_and_other_sites_in_chromium(tmp_path: Path, recorded_match: Path) -> None:
    """A replay whose seat name is HTML shows the name as text and runs nothing; a page of another
    origin that posts to the server (a simple no-cors request, no preflight) starts no game."""
    from selenium.webdriver.common.by import By

    html = "<img src=x onerror=\"document.title='pwned'\">"
    lines = recorded_match.read_text().splitlines(keepends=True)
    games = [json.loads(line) for line in lines[1:]]
    for game in games:
        game["seats"][0] = html
    upload = tmp_path / "html_names.jsonl"
    upload.write_text(lines[0] + "".join(json.dumps(g) + "\n" for g in games))

    app = create_app(seed=0)
    posted: list[str] = []

    async def counting(scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            posted.append(scope["path"])
        await app(scope, receive, send)

    evil = tmp_path / "site"
    evil.mkdir()
    with serving(counting) as url, browser(tmp_path) as driver:
        driver.get(url)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
        driver.find_element(By.ID, "show-replay").click()
        driver.find_element(By.ID, "replay-file").send_keys(str(upload))
        wait(driver, lambda d: d.find_element(By.ID, "replay-step").text.startswith("step 0 of"), "the replay")
        assert not driver.find_elements(By.CSS_SELECTOR, "#replay-table img, #replay-game img")
        names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#replay-table .name")]
        assert any(html in name for name in names), names
        time.sleep(0.5)  # an onerror would have run by now
        assert driver.title == "Hearts"

        (evil / "index.html").write_text(
            "<!doctype html><title>elsewhere</title><script>"
            f'fetch("{url}/api/games", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},'
            ' body: "{}"}).finally(() => { document.title = "sent"; });'
            "</script>"
        )
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(evil))
        with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as other:
            threading.Thread(target=other.serve_forever, daemon=True).start()
            try:
                driver.get(f"http://localhost:{other.server_address[1]}/")  # another origin than url
                wait(driver, lambda d: d.title == "sent", "the other site's request", timeout=30)
            finally:
                other.shutdown()
        assert "/api/games" in posted  # it reached the server, which refused it
        assert not app.state.tables.games


CARD_WORDS = re.compile(r"(2|3|4|5|6|7|8|9|10|Jack|Queen|King|Ace) of (clubs|diamonds|spades|hearts)")


@pytest.mark.browser
def test_a_game_with_the_keys_and_what_the_page_says_in_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-hand game with the keys: a slow deal says what it waits for; the cards are buttons
    named for a screen reader, reached with Tab; a finished trick stays on the table until a key;
    an illegal card's key says why; a mistyped New game (declined, then confirmed and refused)
    leaves the game in play; Play again at the end; and once the server stops, a move says so."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from hearts_env.agents.human.web import tables as tables_module

    real = tables_module.WebTable.__init__

    def slow(self, *args, **kwargs) -> None:  # a deal that takes a while, as the agents' first compilation does
        time.sleep(2)
        real(self, *args, **kwargs)

    monkeypatch.setattr(tables_module.WebTable, "__init__", slow)
    app = create_app(seed=0)

    def game_id(d) -> str:
        return d.execute_script("return game && game.id")

    with browser(tmp_path) as driver:
        with serving(app) as url:
            driver.get(f"{url}/?trick_pause=60000")
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"), "the agents")
            offered = [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, "#agent-names option")]
            assert "program" not in offered and "trained" not in offered
            for field, value in (("opponents", "simple"), ("target-score", "0")):
                driver.find_element(By.ID, field).clear()
                driver.find_element(By.ID, field).send_keys(value)
            driver.find_element(By.ID, "start").click()
            said = "Preparing the agents (compiling on first run)…"
            wait(driver, lambda d: text(d, "waiting") == said, "the wait said", timeout=10)
            cards = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.card.legal"), "the deal")
            assert text(driver, "waiting") == ""
            assert all(CARD_WORDS.fullmatch(c.get_attribute("aria-label")) for c in cards)
            first = game_id(driver)

            press(driver, Keys.TAB)  # the focus is on the prompt: Tab reaches the first card
            assert driver.switch_to.active_element.get_attribute("data-card") == cards[0].get_attribute("data-card")
            for _ in range(3):  # pick three cards with Space, Tab to the next
                press(driver, Keys.SPACE)
                press(driver, Keys.TAB)
            assert len(driver.find_elements(By.CSS_SELECTOR, '#hand .card[aria-pressed="true"]')) == 3
            driver.execute_script("document.getElementById('prompt').focus()")
            press(driver, Keys.ENTER)  # pass

            shown_trick = said_why = retyped = False
            for turn in range(13):
                legal = persons_turn(driver)
                if legal == "over":
                    break
                play_key = last_legal_key(driver)  # a key, not an element: the page redraws the hand often
                status = text(driver, "status")
                info = driver.find_element(By.CSS_SELECTOR, "#table .info").text
                if turn and not shown_trick:  # the trick the person's last card was in, finished, on show
                    assert "took it" in info and "took the trick" in status, (info, status)
                    assert len(driver.find_elements(By.CSS_SELECTOR, "#table .slot")) == 4
                    press(driver, Keys.ESCAPE)  # any key moves on: the trick in play on the table
                    wait(driver, lambda d: "took it" not in d.find_element(By.CSS_SELECTOR, "#table .info").text, "on")
                    shown_trick = True
                illegal = driver.find_elements(By.CSS_SELECTOR, "#hand .card.illegal")
                if illegal and not said_why:
                    name = illegal[0].get_attribute("aria-label")
                    press(driver, illegal[0].get_attribute("data-key"))
                    assert re.match(f"You cannot play the {name}: you ", text(driver, "alert")), text(driver, "alert")
                    assert driver.find_element(By.ID, "alert").get_attribute("role") == "alert"
                    said_why = True
                if turn == 2:  # a typo in New game: declined, then confirmed and refused
                    driver.find_element(By.CSS_SELECTOR, "#settings-box summary").click()
                    driver.find_element(By.ID, "opponents").clear()
                    driver.find_element(By.ID, "opponents").send_keys("heuristc")
                    driver.find_element(By.ID, "start").click()
                    wait(driver, lambda d: d.switch_to.alert, "the question").dismiss()
                    driver.find_element(By.ID, "start").click()
                    wait(driver, lambda d: d.switch_to.alert, "the question").accept()
                    wait(driver, lambda d: "unknown agent 'heuristc'" in text(d, "alert"), "the refusal")
                    assert game_id(driver) == first and first in app.state.tables.games  # still in play
                    driver.execute_script("document.getElementById('prompt').focus()")
                    retyped = True
                press(driver, play_key)
                wait(driver, lambda d, s=status: text(d, "status") != s, "the card played")
            assert shown_trick and said_why and retyped
            assert text(driver, "status").endswith("Game over")
            assert driver.find_element(By.ID, "hand-result-title").text.startswith("Game over")
            driver.find_element(By.ID, "opponents").clear()
            driver.find_element(By.ID, "opponents").send_keys("simple")
            driver.find_element(By.ID, "play-again").click()
            wait(driver, lambda d: game_id(d) not in (None, first), "a new game")
            assert list(app.state.tables.games) == [game_id(driver)]  # the one over was let go
            wait(driver, lambda d: d.find_element(By.ID, "prompt").text.startswith("Pick 3 cards"), "the pass")

        for key in ("a", "b", "c", Keys.ENTER):  # the server is gone: the pass cannot be sent
            press(driver, key)
        wait(driver, lambda d: "server cannot be reached" in text(d, "alert"), "the failure said")
