"""The pictures of docs/viewing.md, made by the real programs: ``python docs/make_screenshots.py``.

Draws two tables with ``render_mode="rgb_array"``, then starts ``hearts-web``'s app on a loopback
port and has headless Chromium (Debian's ``chromium`` and ``chromium-driver``) play into a hand
and open a replay recorded by ``hearts-arena --record``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

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

    from hearts_env.agents.web.app import create_app

    folder = Path(tempfile.mkdtemp())
    games = folder / "games.jsonl"
    subprocess.run(
        [sys.executable, "-m", "hearts_env.agents.arena_cli", "ppo", "heuristic", "simple", "random"]
        + ["--deals", "1", "--record", str(games)],
        check=True,
        capture_output=True,
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(seed=5), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1300,800", f"--user-data-dir={folder / 'chromium'}"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 30)
    try:
        driver.get(f"http://127.0.0.1:{port}/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#agent-names option"))
        opponents = driver.find_element(By.ID, "opponents")
        opponents.clear()
        opponents.send_keys("ppo pimc-ppo heuristic")
        driver.find_element(By.ID, "start").click()
        cards = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seat-0 .hand .card.legal"))
        for card in cards[-3:]:
            card.click()
        driver.find_element(By.ID, "pass-button").click()
        for _ in range(3):  # a few tricks in, then a hint from ppo
            wait.until(lambda d: d.find_element(By.ID, "prompt").text.startswith("Your turn"))
            driver.find_element(By.CSS_SELECTOR, "#seat-0 .card.legal").click()
            time.sleep(1)
        wait.until(lambda d: d.find_element(By.ID, "prompt").text.startswith("Your turn"))
        driver.find_element(By.ID, "hint-button").click()
        wait.until(lambda d: d.find_elements(By.ID, "hint-card"))
        driver.save_screenshot(str(DOCS / "web_play.png"))
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
