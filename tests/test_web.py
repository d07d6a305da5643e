"""The browser table: its JSON API (refusals change nothing) and, in a real headless Chromium, a
whole hand (pass three cards, play only legal cards, ask for a hint, reach the hand's score) and
a recorded replay played back."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette 1.x prefers httpx2 to httpx; either drives the app
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from hearts_env.agents.web.app import create_app  # noqa: E402
from hearts_env.agents.web.tables import WebTables  # noqa: E402


@pytest.fixture()
def client() -> TestClient:
    return TestClient(create_app(seed=0))


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
        if illegal:
            refused(client.post(f"{url}/play", json={"card": illegal[0], "turn": view["turn"]}), 400, "you cannot play")
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
        ({"opponents": ["pimc:worlds=100000"]}, "beyond this server's limit"),
        ({"opponents": ["trained:path=/etc"]}, "path= must lie inside a policy folder"),
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
    refused(client.post("/api/games", json=request_), 400, words)


def test_trained_path_only_inside_a_policy_folder() -> None:
    from hearts_env.agents.trained import SHIPPED_DIR

    client = TestClient(create_app(policy_dirs=[str(SHIPPED_DIR)]))
    view = new_game(client, opponents=[f"trained:path={SHIPPED_DIR / 'ppo'}"])
    assert view["agents"]["1"].startswith("trained:path=")


def test_hints_show_the_agents_reasons(client: TestClient) -> None:
    view = new_game(client, seat=0, opponents=["ppo"], seed=4)
    url = f"/api/games/{view['id']}"
    hint = client.post(f"{url}/hint", json={"agent": "ppo", "turn": view["turn"]}).json()
    probabilities = hint["probabilities"]
    assert hint["card"] in view["seats"][0]["hand_names"] and set(probabilities) == set(view["legal_names"])
    assert abs(sum(probabilities.values()) - 1) < 1e-3 and max(probabilities, key=probabilities.get) == hint["card"]
    view = client.post(f"{url}/pass", json={"cards": view["seats"][0]["hand_names"][:3], "turn": view["turn"]}).json()
    while len(view["legal_names"]) < 2:
        view = client.post(f"{url}/play", json={"card": view["legal_names"][0], "turn": view["turn"]}).json()
    hint = client.post(f"{url}/hint", json={"agent": "pimc-random:worlds=8", "turn": view["turn"]}).json()
    assert set(hint["values"]) == set(view["legal_names"]) and hint["card"] in view["legal_names"]
    refused(client.post(f"{url}/hint", json={"agent": "ppo:rollout=1", "turn": view["turn"]}), 400, "hint: agent")


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


def test_replays_upload_and_steps(client: TestClient, recorded_match: Path) -> None:
    body = recorded_match.read_bytes()
    summary = client.post("/api/replays?name=games.jsonl", content=body).json()
    assert len(summary["games"]) == 8
    view = client.get(f"/api/replays/{summary['id']}/games/1/steps/0").json()
    assert view["step"] == 0 and len(view["hand_starts"]) > 1 and all(s["face_up"] for s in view["seats"])
    later = client.get(f"/api/replays/{summary['id']}/games/1/steps/{view['hand_starts'][1]}").json()
    assert later["hand_number"] == 2
    last = client.get(f"/api/replays/{summary['id']}/games/1/steps/{view['steps'] - 1}").json()
    assert last["game_over"]
    refused(client.get(f"/api/replays/{summary['id']}/games/1/steps/{view['steps']}"), 400, "step must be in")
    refused(client.post("/api/replays", content=body[:-30]), 400, "truncated")


# ---------------------------------------------------------------------------------------------
# In a real browser

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


@contextlib.contextmanager
def serving(app) -> str:
    """The app on a free loopback port, in a thread, for as long as the block runs."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def browser(tmp_path: Path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="no browser: pip install selenium")
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("no browser: install Debian's chromium and chromium-driver (apt-get; .ci/run does, as root)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, condition, what: str, timeout: float = 120):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    waiting = WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
    return waiting.until(lambda d: condition(d), message=f"waiting for {what}")


def names(driver, selector: str) -> set[str]:
    """The cards of the elements ``selector`` finds, read in one go (the page redraws often)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.dataset.card)"
    return set(driver.execute_script(script, selector))


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
        cards = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#seat-0 .hand .card.legal"), "the deal")
        assert "Pick 3 cards" in driver.find_element(By.ID, "prompt").text
        passed = [c.get_attribute("data-card") for c in cards[:3]]
        for card in cards[:3]:
            card.click()
        assert driver.find_element(By.ID, "pass-button").is_enabled()
        driver.find_element(By.ID, "pass-button").click()

        def held(d) -> set[str]:
            return names(d, "#seat-0 .hand .card")

        wait(driver, lambda d: len(held(d)) == 13 and not set(passed) & held(d), "the passed cards gone")
        table = next(iter(app.state.tables.games.values()))
        hinted = False
        for _ in range(14):

            def my_turn(d):
                if d.find_element(By.ID, "hand-result").is_displayed():
                    return "over"
                return (
                    d.find_elements(By.CSS_SELECTOR, "#seat-0 .hand .card.legal")
                    and "play" in d.find_element(By.ID, "prompt").text
                    and d.find_element(By.ID, "prompt").text.startswith("Your turn")
                )

            if wait(driver, my_turn, "the person's turn") == "over":
                break
            status = driver.find_element(By.ID, "status").text
            legal = names(driver, "#seat-0 .card.legal")
            assert legal == set(table.view()["legal_names"])  # the server's legal cards, and only those
            illegal = driver.find_elements(By.CSS_SELECTOR, "#seat-0 .card.illegal")
            if illegal:  # not playable: a click sends nothing
                illegal[0].click()
                time.sleep(0.2)
                assert driver.find_element(By.ID, "status").text == status
            if not hinted:
                driver.find_element(By.ID, "hint-button").click()
                shown = wait(driver, lambda d: d.find_elements(By.ID, "hint-card"), "the hint")
                assert "ppo would play" in shown[0].text and shown[0].text.split()[-1] in legal
                assert driver.find_elements(By.CSS_SELECTOR, "#hint-output table tr")  # the probabilities
                hinted = True
            driver.find_element(By.CSS_SELECTOR, "#seat-0 .card.legal").click()
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
