"""``cardzoo serve`` in a real browser: Debian's chromium, headless, driven by Selenium.

The test starts ``cardzoo serve`` itself on 127.0.0.1, plays a whole game of every title by
clicking legal moves on the play page, checks the result shown against the record the server
saved, and steps through that record on the replay page. At every step it compares the table
in the page with what the engine draws for the human's seat and checks that no card another seat
holds in secret is in the page. Skipped (with the reason) only where chromium, its driver or the
``web`` extra (selenium) is missing; CI installs all three and sets CARDZOO_REQUIRE_BROWSER=1, which
turns a missing one into a failure.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from cardzoo.train.play import result_lines
from cardzoo.train.records import describe_result, load_record, replay_record

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SVG = "{http://www.w3.org/2000/svg}"
#: Games where the test clicks the last listed move instead of a random one: random play in
#: Odin's Ravens takes about 800 clicks to finish a game, the last move about 100 (seed 3: 104).
CLICK_LAST = ("odins_ravens",)
GAMES = ("cubirds", "beasty_bar", "odins_ravens", "sitting_ducks")
#: Set to a folder (docs/images) to save a screenshot of each page per game there.
SCREENSHOTS = os.environ.get("CARDZOO_SCREENSHOTS")

pytestmark = pytest.mark.browser

#: CI sets CARDZOO_REQUIRE_BROWSER=1: there a missing browser or driver fails instead of skipping.
REQUIRED = os.environ.get("CARDZOO_REQUIRE_BROWSER") == "1"


def _missing(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason} (CARDZOO_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    _missing(f"no {CHROMIUM} or {CHROMEDRIVER}: apt-get install chromium chromium-driver")
try:
    from selenium import webdriver
except ImportError:
    _missing("selenium is missing: pip install -e '.[web]'")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

# The texts of the table picture in the page, in document order.
TEXTS_JS = "return [...document.querySelectorAll('#table svg text')].map(t => t.textContent);"


def svg_texts(svg: str, section: str | None = None) -> list[str]:
    """Every text of an SVG picture (or of its group ``section``), in document order."""
    root = ET.fromstring(svg)
    if section is not None:
        found = [g for g in root.iter(f"{SVG}g") if g.get("id") == section]
        if not found:
            return []
        root = found[0]
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def hidden_texts(env, seat: int) -> set[str]:
    """Texts of other seats' hand sections in the all-seeing picture that the seat's own picture
    does not show anywhere: the names of cards it must not learn."""
    own = set(svg_texts(env.render_svg(seat)))
    everyone = env.render_svg(None)
    hidden: set[str] = set()
    for q in range(env.config.num_players):
        if q != seat:
            hidden |= set(svg_texts(everyone, f"hand-{q}")) - own
    return hidden


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``cardzoo serve --port 0`` with an empty records folder; yields (url, folder)."""
    folder = tmp_path_factory.mktemp("records")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardzoo.train.cli", "serve", "--port", "0"]
        + ["--records", str(folder), "--agents", "random"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if not line.startswith("cardzoo serve: http://127.0.0.1:"):
        proc.kill()
        pytest.fail(f"cardzoo serve did not start: {line!r} {proc.stderr.read()!r}")
    url = line.split()[2].rstrip("/")
    yield url, folder
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def screenshot(driver, name: str) -> None:
    """With CARDZOO_SCREENSHOTS set, save the page as a small PNG there (64 colours)."""
    if not SCREENSHOTS:
        return
    path = os.path.join(SCREENSHOTS, name)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(path)
    from PIL import Image  # pillow comes with matplotlib (train extra); only needed here

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(64)
    small.save(path, optimize=True)


def wait_ready(driver) -> None:
    WebDriverWait(driver, 20, poll_frequency=0.02).until(
        lambda d: d.execute_script("return document.body.dataset.ready === '1'")
    )


def page_step(driver) -> int:
    return int(driver.execute_script("return document.body.dataset.step || '-1'"))


def start_game(driver, url: str, game: str, seed: int) -> None:
    driver.get(f"{url}/play")
    wait_ready(driver)
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    seed_box = driver.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    driver.find_element(By.ID, "start").click()
    WebDriverWait(driver, 20, poll_frequency=0.02).until(lambda d: page_step(d) >= 0)


def play_by_clicking(driver, seed: int, last: bool, shot: str) -> dict[int, list[str]]:
    """Click random legal moves (or always the last one listed) to the end; the table's texts
    at each of the human's turns."""
    rng = random.Random(seed)
    seen: dict[int, list[str]] = {}
    while True:
        step = page_step(driver)
        buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
        if not buttons:
            break
        seen[step] = driver.execute_script(TEXTS_JS)
        if len(seen) == 4:
            screenshot(driver, shot)
        (buttons[-1] if last else rng.choice(buttons)).click()
        WebDriverWait(driver, 20, poll_frequency=0.02).until(lambda d, s=step: page_step(d) > s)
    assert driver.find_element(By.ID, "result").is_displayed()
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_play_a_whole_game_by_clicking_then_replay_it(server, browser, game):
    url, folder = server
    seed = 3
    start_game(browser, url, game, seed)
    seen = play_by_clicking(browser, seed, game in CLICK_LAST, f"serve_play_{game}.png")
    assert seen, "the human never had a move"
    # the finished game was saved; the result in the page is the record's
    link = browser.find_element(By.ID, "record-link")
    name = link.text.split("(")[1].rstrip(")")
    record = load_record(str(folder / name))
    seat = record["agents"].index("human")
    shown = browser.find_element(By.ID, "result-lines").text.splitlines()
    assert shown == result_lines(record["result"], record["agents"], seat)

    # every table the human saw is the engine's picture for that seat, with no hidden card
    hidden_total = 0

    def check(k, decision, env):
        nonlocal hidden_total
        if k in seen:
            assert seen[k] == svg_texts(env.render_svg(seat)), f"step {k}"
            hidden = hidden_texts(env, seat)
            hidden_total += len(hidden)
            assert not hidden & set(seen[k]), f"step {k}: hidden cards in the page"

    replay_record(record, check)
    assert hidden_total > 0, "no step had a hidden card to look for: the check proves nothing"

    # the replay page of that record: step on, change the point of view, go to the end
    link.click()
    wait_ready(browser)
    assert page_step(browser) == 0
    for _ in range(3):
        before = page_step(browser)
        browser.find_element(By.ID, "next").click()
        WebDriverWait(browser, 20, poll_frequency=0.02).until(
            lambda d, b=before: page_step(d) == b + 1
        )
    other = (seat + 1) % record["players"]
    Select(browser.find_element(By.ID, "view")).select_by_value(str(other))
    WebDriverWait(browser, 20, poll_frequency=0.02).until(
        lambda d: "seen by seat" in " ".join(d.execute_script(TEXTS_JS)[:1])
    )
    texts = browser.execute_script(TEXTS_JS)

    def at_three(k, decision, env):
        if k == 3:
            assert texts == svg_texts(env.render_svg(other))
            assert not hidden_texts(env, other) & set(texts)

    replay_record(record, at_three)
    browser.find_element(By.ID, "last").click()
    last = len(record["decisions"])
    WebDriverWait(browser, 20, poll_frequency=0.02).until(lambda d: page_step(d) == last)
    assert browser.find_element(By.ID, "result").text == describe_result(record)
    screenshot(browser, f"serve_replay_{game}.png")


def test_a_bad_move_is_refused_in_the_page_and_changes_nothing(server, browser):
    url, _ = server
    start_game(browser, url, "beasty_bar", 3)
    step = page_step(browser)
    session = browser.execute_script("return current.session")
    before = browser.execute_script(TEXTS_JS)
    # the page's own request path with an action id that is never legal
    browser.execute_script("play(99999)")
    WebDriverWait(browser, 20, poll_frequency=0.02).until(
        lambda d: "not a legal move" in d.find_element(By.ID, "error").text
    )
    assert page_step(browser) == step
    assert browser.execute_script(TEXTS_JS) == before
    assert browser.execute_script("return current.session") == session


def test_replay_list_names_the_records(server, browser):
    url, folder = server
    subprocess.run(
        [sys.executable, "-m", "cardzoo.train.cli", "eval", "beasty_bar", "--games", "1"]
        + ["--record", str(folder), "--quiet"],
        check=True,
        capture_output=True,
    )
    browser.get(f"{url}/replay")
    wait_ready(browser)
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#records tbody a")]
    assert "beasty_bar-2p-g0.json" in names
