"""What the browser tests of the web table share: the app served on a loopback port, a headless
Chromium driven by selenium, waiting on the page, and the page's layout measured in the browser."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

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


def last_legal_key(driver) -> str:
    """The keyboard key of the hand's last legal card, read in one go (the page redraws often)."""
    script = "return [...document.querySelectorAll('#hand .card.legal')].map(e => e.dataset.key).pop()"
    return wait(driver, lambda d: d.execute_script(script), "a legal card's key")


def viewport(driver, width: int, height: int) -> None:
    """Make the page's viewport ``width`` x ``height`` CSS pixels (a phone's below 600 wide)."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


LAYOUT = """
const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
const shown = (selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => ({what: `${selector} ${e.id || e.dataset.card || e.textContent.slice(0, 24)}`, e, ...box(e)}));
const meet = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 0.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 0.5;
const problems = [];
// On a phone the window (innerWidth) widens to a page wider than the screen: the screen's width
// is the root's clientWidth (the width of the window less a scrollbar's elsewhere).
const width = document.documentElement.scrollWidth, screen = document.documentElement.clientWidth;
if (width > window.innerWidth || width > screen) problems.push(`the page is ${width} px wide in a ${screen} px window`);
const hand = shown('#hand .card');
const labels = shown('.table .name, .table .pts, .table .who, .table .info');
const panels = shown('#actions, .keys, .result, .side, .session-bar, .table');
const tableCards = shown('.table .card');
const seats = shown('.table .seat, .table .slot');
for (const card of hand) for (const other of [...labels, ...panels]) {
  if (meet(card, other)) problems.push(`${card.what} overlaps ${other.what}`);
}
for (const label of labels) for (const card of tableCards) {
  if (meet(label, card)) problems.push(`${label.what} overlaps ${card.what}`);
}
for (const [i, a] of seats.entries()) for (const b of seats.slice(i + 1)) {
  if (meet(a, b)) problems.push(`${a.what} overlaps ${b.what}`);
}
for (const e of [...hand, ...labels, ...tableCards]) {
  if (e.l < -0.5 || e.r > screen + 0.5) problems.push(`${e.what} lies outside the window`);
}
return problems;
"""


def layout_problems(driver) -> list[str]:
    """What is wrong with the page's layout as shown: a page wider than its window, one of the
    hand's cards over a label or a panel, a label on the table over a card, two seats (or two
    cards of the trick) over each other, a card or a label outside the window."""
    return driver.execute_script(LAYOUT)


CONTRAST = """
const rgb = (colour) => colour.match(/[\\d.]+/g).map(Number);
const luminance = ([r, g, b]) => {
  const f = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const behind = (e) => {
  for (; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c;
  }
  return [255, 255, 255];
};
const problems = [];
for (const e of document.body.querySelectorAll('*')) {
  const text = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  if (!text || !e.getClientRects().length || e.matches(':disabled')) continue;
  const style = getComputedStyle(e);
  const [a, b] = [luminance(rgb(style.color)), luminance(behind(e))];
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  const size = parseFloat(style.fontSize), large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
  const what = `${e.tagName} ${e.className} '${e.textContent.slice(0, 20)}'`;
  if (ratio < (large ? 3 : 4.5)) problems.push(`${what}: ${ratio.toFixed(2)}:1`);
}
return problems;
"""


def contrast_problems(driver) -> list[str]:
    """The text shown whose contrast with what lies behind it is under WCAG's 4.5:1 (3:1 for
    large text), disabled controls aside."""
    return driver.execute_script(CONTRAST)


def page_width(driver) -> int:
    """The document's width in CSS pixels: the viewport's width unless the page scrolls sideways."""
    return driver.execute_script("return document.documentElement.scrollWidth")


def press(driver, key: str) -> None:
    """Press ``key`` as the person does: sent to whatever has the focus."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def text(driver, element_id: str) -> str:
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", element_id)


def persons_turn(driver):
    """Wait for the person's turn: the legal cards' elements then, or ``"over"`` once the hand's
    result shows; the status must say the trick and whose turn it is, never a move counter."""
    from selenium.webdriver.common.by import By

    def ready(d):
        if d.find_element(By.ID, "hand-result").is_displayed():
            return "over"
        legal = d.find_elements(By.CSS_SELECTOR, "#hand .card.legal")
        return legal and d.find_element(By.ID, "prompt").text.startswith("Your turn") and legal

    legal = wait(driver, ready, "the person's turn")
    if legal != "over":
        status = text(driver, "status")
        assert re.search(r"Trick \d+ of 13: your turn", status) and "Turn" not in status, status
    return legal
