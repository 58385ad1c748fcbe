"""The search page (`sieve serve --index NAME=DIR` serves /ui), driven in a
real headless browser: Debian's Chromium through chromium-driver and
Selenium. The tests type into the page as a user would, read the results
from the DOM, and save a screenshot (build/test-artifacts/search-page*.png).

The index holds a document whose text is markup (a script, an image with an
onerror handler): it must show as text and nothing of it may run. The server
requires an API key, which the page asks for."""
from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, run_sieve
from server_harness import Server, models_root

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
CROSS_ENCODER = FIXTURES / "cross-encoder-minilm-l6"
ARTIFACTS = ROOT / "build" / "test-artifacts"
KEY = "page-test-key"
MARKUP = ("Evil notes: <script>document.title='pwned'</script> "
          "<img src=x onerror=\"document.title='pwned'\"> and <b>bold</b> quantization text.")

selenium = pytest.importorskip("selenium", reason="selenium is not installed (requirements.txt)")
CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="Debian's chromium and chromium-driver are not installed (scripts/bootstrap.sh)"),
    pytest.mark.skipif(not (CROSS_ENCODER / "model.onnx").exists(), reason=f"fixture models missing in {FIXTURES}"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ui")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "quantize.md").write_text("# Quantization\n\nQuantize a model to INT8 with sieve-export quantize. "
                                      "Dynamic quantization needs no calibration.\n")
    (docs / "cats.txt").write_text("Cats sleep most of the day and hunt at dawn.\n")
    (docs / "évil.txt").write_text(MARKUP + "\n")
    run_sieve("index", "add", "--index", str(tmp / "docs.idx"), "--model", str(MODEL), "--quiet", str(docs))
    root = models_root(tmp, {"all-MiniLM-L6-v2": MODEL, "reranker": CROSS_ENCODER})
    s = Server(root, "--index", f"docs={tmp / 'docs.idx'}", env={"SIEVE_API_KEYS": KEY})
    yield s
    assert s.stop() == 0, s.output()


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def wait_for(driver, condition, timeout: float = 30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: condition(d))


def screenshot(driver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / name))


def search(driver, query: str) -> list:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.ID, "query")
    box.clear()
    box.send_keys(query, Keys.ENTER)  # the keyboard alone: Enter submits
    wait_for(driver, lambda d: "result" in d.find_element(By.ID, "status").text
             or "error" in d.find_element(By.ID, "status").get_attribute("class"))
    status = driver.find_element(By.ID, "status")
    assert "error" not in status.get_attribute("class"), status.text
    return driver.find_elements(By.CSS_SELECTOR, "#results > li")


def test_page_and_assets_are_served_with_a_strict_policy(server):
    for path, kind in (("/ui", "text/html"), ("/ui/ui.js", "text/javascript"), ("/ui/ui.css", "text/css")):
        with urllib.request.urlopen(server.url + path, timeout=10) as response:
            body = response.read().decode()
            assert response.headers["Content-Type"].startswith(kind)
            policy = response.headers["Content-Security-Policy"]
            assert "script-src 'self'" in policy and "default-src 'none'" in policy
        # Offline: nothing is fetched from elsewhere.
        assert "http://" not in body and "https://" not in body, path
    # The API behind the page still needs the key.
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(urllib.request.Request(server.url + "/v1/indexes"), timeout=10)
    assert e.value.code == 401


def test_search_in_a_real_browser(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server.url + "/ui")
    # No key yet: the page asks for one.
    key_box = wait_for(browser, lambda d: d.find_element(By.ID, "api-key") if d.find_element(
        By.ID, "key-form").is_displayed() else False)
    assert "API key" in browser.find_element(By.ID, "status").text
    key_box.send_keys(KEY, Keys.ENTER)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#index option"))
    assert not browser.find_element(By.ID, "key-form").is_displayed()
    modes = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#mode option")]
    assert modes == ["hybrid", "vector", "bm25"]  # the index has no sparse model
    assert [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#reranker option")] == ["reranker"]

    hits = search(browser, "how do I quantize a model")
    assert hits, "no results"
    first = hits[0]
    assert first.find_element(By.TAG_NAME, "h2").text == "Quantization"
    marks = [m.text.lower() for m in first.find_elements(By.TAG_NAME, "mark")]
    assert "quantize" in marks, marks  # the matched words are highlighted
    assert "quantize.md" in first.find_element(By.CLASS_NAME, "source").text
    status = browser.find_element(By.ID, "status").text
    assert " ms" in status and "server" in status, status  # the query's latency
    screenshot(browser, "search-page.png")

    # Reranking: the cross-encoder's score is shown.
    browser.find_element(By.ID, "rerank").click()
    hits = search(browser, "quantization")
    assert "rerank" in hits[0].find_element(By.CLASS_NAME, "scores").text


def test_document_markup_is_shown_as_text_and_never_runs(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/ui")  # the key is kept for the browser session
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#index option"))
    hits = search(browser, "evil notes script bold")
    evil = [h for h in hits if "évil.txt" in h.find_element(By.CLASS_NAME, "source").text]
    assert evil, [h.text for h in hits]
    text = evil[0].find_element(By.CLASS_NAME, "text").text
    assert "<script>document.title='pwned'</script>" in text and "<img src=x" in text and "<b>bold</b>" in text
    assert browser.title == "Sieve search"
    for tag in ("script", "img", "b"):
        assert not evil[0].find_elements(By.TAG_NAME, tag), f"a <{tag}> from the document became an element"


def test_narrow_window_and_keyboard(server, browser):
    from selenium.webdriver.common.by import By

    browser.set_window_size(360, 780)
    try:
        browser.get(server.url + "/ui")
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#index option"))
        # The query box has the focus on arrival, and every control is reachable.
        assert browser.switch_to.active_element.get_attribute("id") == "query"
        hits = search(browser, "cats sleep")
        assert hits
        overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow} px wider than a 360 px window"
        screenshot(browser, "search-page-narrow.png")
        labels = browser.execute_script(
            "return [...document.querySelectorAll('input, select')].filter(e => !e.labels.length && "
            "!e.getAttribute('aria-label')).map(e => e.id)")
        assert labels == [], f"controls without a label: {labels}"
    finally:
        browser.set_window_size(1200, 900)


def test_no_page_without_an_index(tmp_path):
    root = models_root(tmp_path, {"all-MiniLM-L6-v2": MODEL})
    s = Server(root)
    try:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(s.url + "/ui", timeout=10)
        assert e.value.code == 404
        body = json.loads(e.value.read() or b"{}")
        assert body is not None
    finally:
        assert s.stop() == 0
