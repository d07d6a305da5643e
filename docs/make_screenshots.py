"""The pictures of docs/viewing.md, made by the real programs: ``python docs/make_screenshots.py``.

Draws two tables with ``render_mode="rgb_array"``, then starts ``hearts-web``'s app on a loopback
port and has headless Chromium (Debian's ``chromium`` and ``chromium-driver``) play into a hand on
a wide screen (1300x900) and on a phone (390x844), play a short duplicate session to its results
and one of its deals side by side, and open a replay recorded by ``hearts-arena --record``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from hearts_env.envs.gym_env import HeartsEnv

DOCS = Path(__file__).parent


def env_pictures() -> None:
    for name, knobs, steps in (("table_4p.png", {}, 8), ("table_11p.png", {"num_players": 11, "decks": 2}, 4)):
        env = HeartsEnv(render_mode="rgb_array", render_size=(960, 720), **knobs)
        _, info = env.reset(seed=3)
        for _ in range(steps):
            _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        Image.fromarray(env.render()).save(DOCS / name)


def browser_pictures() -> None:
    import uvicorn
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from hearts_env.agents.human.web.app import create_app

    folder = Path(tempfile.mkdtemp())
    games = folder / "games.jsonl"
    subprocess.run(
        [sys.executable, "-m", "hearts_env.agents.cli", "ppo", "heuristic", "simple", "random"]
        + ["--deals", "1", "--record", str(games)],
        check=True,
        capture_output=True,
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(seed=5, db=str(folder / "sessions.sqlite"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--hide-scrollbars", f"--user-data-dir={folder / 'chromium'}"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 60)

    def viewport(width: int, height: int) -> None:
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        driver.get(f"http://127.0.0.1:{port}/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"))

    def fill(field: str, value: str) -> None:
        element = driver.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)

    def my_turn(d: Any) -> Any:
        return d.find_element(By.ID, "prompt").text.startswith("Your turn") and d.find_elements(
            By.CSS_SELECTOR, "#hand .card.legal"
        )

    def play(cards: int | None) -> None:
        """Pass the last three cards (unless the hand keeps its cards), then play the first legal
        card each turn: ``cards`` of them (None: on to the end of the hand)."""
        picks = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card.legal"))
        if driver.find_element(By.ID, "prompt").text.startswith("Pick"):
            for card in picks[-3:]:
                card.click()
            driver.find_element(By.ID, "pass-button").click()
        played = 0
        while cards is None or played < cards:
            ready = wait.until(lambda d: d.find_element(By.ID, "hand-result").is_displayed() or my_turn(d))
            if ready is True:  # the hand's result shows
                return
            status = driver.find_element(By.ID, "status").text
            ready[0].click()
            wait.until(lambda d, s=status: d.find_element(By.ID, "status").text != s)
            played += 1
        wait.until(my_turn)

    try:
        for (width, height), name in (((1300, 900), "web_play.png"), ((390, 844), "web_phone.png")):
            viewport(width, height)
            fill("opponents", "ppo pimc-ppo heuristic")
            driver.find_element(By.ID, "start").click()
            play(3)  # a few tricks in, then (on the wide screen) a hint from ppo
            if width > 600:
                driver.find_element(By.ID, "hint-button").click()
                wait.until(lambda d: d.find_elements(By.ID, "hint-card"))
            driver.save_screenshot(str(DOCS / name))

        viewport(1300, 900)  # a duplicate session of four deals against heuristic players, ppo in your seat
        driver.find_element(By.ID, "show-duplicate").click()
        for field, value in (("opponents", "heuristic"), ("agent", "ppo"), ("deals", "4"), ("game-seed", "2")):
            fill(field, value)
        driver.find_element(By.ID, "start-session").click()
        for deal in range(4):
            wait.until(lambda d, n=deal: d.find_element(By.ID, "session-bar").text.startswith(f"Deal {n + 1} of"))
            play(None)
            driver.find_element(By.ID, "next-hand").click()
        wait.until(lambda d: d.find_element(By.ID, "session-results").is_displayed())
        driver.save_screenshot(str(DOCS / "web_session.png"))
        driver.find_element(By.CSS_SELECTOR, "#most-different button").click()
        for _ in range(24):
            driver.find_element(By.ID, "sbs-next").click()
        wait.until(lambda d: "step 24 of" in d.find_element(By.ID, "sbs-step").text)
        driver.save_screenshot(str(DOCS / "web_side_by_side.png"))

        driver.find_element(By.ID, "show-replay").click()
        driver.find_element(By.ID, "replay-file").send_keys(str(games))
        wait.until(lambda d: d.find_element(By.ID, "replay-step").text.startswith("step 0"))
        for _ in range(20):
            driver.find_element(By.ID, "replay-next").click()
        wait.until(lambda d: d.find_element(By.ID, "replay-step").text.startswith("step 20"))
        driver.save_screenshot(str(DOCS / "web_replay.png"))
    finally:
        driver.quit()
        server.should_exit = True


if __name__ == "__main__":
    env_pictures()
    browser_pictures()
