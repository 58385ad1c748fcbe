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
import re
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, run_sieve
from server_harness import Server, models_root
from test_formats import minimal_pdf

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
    # A PDF whose second page starts a chunk of its own; a folder beside one whose name it begins.
    (docs / "survey.pdf").write_bytes(minimal_pdf(
        [f"Meadow flowers bloom in spring near the old mill, says page {n}." for n in range(1, 21)]
        + [f"Glacier ice moves downhill slowly into the valley, says page {n}." for n in range(21, 41)]))
    for folder, animal in (("pets", "Dogs"), ("pets-wild", "Wolves")):
        (docs / folder).mkdir()
        for i in range(3):
            (docs / folder / f"{animal.lower()}{i}.txt").write_text(f"{animal} run through the snow, note {i}.\n")
    run_sieve("index", "add", "--index", str(tmp / "docs.idx"), "--model", str(MODEL), "--quiet", str(docs))
    root = models_root(tmp, {"all-MiniLM-L6-v2": MODEL, "reranker": CROSS_ENCODER})
    s = Server(root, "--index", f"docs={tmp / 'docs.idx'}", env={"SIEVE_API_KEYS": KEY})
    s.docs = docs.resolve()
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
    for path, kind in (("/ui", "text/html"), ("/ui/ui.js", "text/javascript"), ("/ui/ui.css", "text/css"),
                       ("/docs", "text/html"), ("/docs/docs.js", "text/javascript"), ("/docs/docs.css", "text/css")):
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


def test_api_docs_page_renders_the_openapi_document_and_sends_requests(server, browser):
    """/docs, offline and under the same policy: one entry per documented operation, and its form sends a request
    to this server with the key typed into the page."""
    from selenium.webdriver.common.by import By
    with urllib.request.urlopen(server.url + "/openapi.json", timeout=10) as response:  # open, like the page
        doc = json.loads(response.read())
    operations = sum(len(item) for item in doc["paths"].values())
    browser.get(server.url + "/docs")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "main details")) == operations)
    assert browser.title == f"Sieve API {doc['info']['version']}"
    browser.find_element(By.ID, "key").send_keys(KEY)
    entry = next(d for d in browser.find_elements(By.CSS_SELECTOR, "main details")
                 if d.find_element(By.CSS_SELECTOR, ".path").text == "/v1/models"
                 and d.find_element(By.CSS_SELECTOR, ".method").text.lower() == "get")
    entry.find_element(By.TAG_NAME, "summary").click()
    entry.find_element(By.TAG_NAME, "button").click()
    wait_for(browser, lambda d: entry.find_element(By.CSS_SELECTOR, "pre.answer").text.startswith("200"))
    assert "all-MiniLM-L6-v2" in entry.find_element(By.CSS_SELECTOR, "pre.answer").text
    # No script error and no request the policy blocked (the browser's own favicon request aside).
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]]


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


def open_page(browser, url: str) -> None:
    """Loads the page, giving the key when it asks for one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(url)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#index option")
             or d.find_element(By.ID, "key-form").is_displayed())
    if browser.find_element(By.ID, "key-form").is_displayed():
        browser.find_element(By.ID, "api-key").send_keys(KEY, Keys.ENTER)
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#index option"))


def results(browser) -> list:
    from selenium.webdriver.common.by import By

    wait_for(browser, lambda d: "result" in d.find_element(By.ID, "status").text
             or "error" in d.find_element(By.ID, "status").get_attribute("class"))
    status = browser.find_element(By.ID, "status")
    assert "error" not in status.get_attribute("class"), status.text
    return browser.find_elements(By.CSS_SELECTOR, "#results > li")


def test_hits_show_format_and_page_and_link_to_the_document(server, browser):
    from selenium.webdriver.common.by import By

    open_page(browser, server.url + "/ui")
    formats = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#format option")]
    assert formats[0] == "any" and "pdf (1)" in formats and "markdown (1)" in formats, formats
    hits = search(browser, "glacier ice moves downhill")
    # A chunk that starts on a later page says which.
    pdf = [h for h in hits if "survey.pdf" in h.find_element(By.CLASS_NAME, "source").text
           and [e.text for e in h.find_elements(By.CLASS_NAME, "section")] not in ([], ["page 1"])]
    assert pdf, [h.text for h in hits]
    facts = pdf[0].find_element(By.CLASS_NAME, "facts")
    assert facts.find_element(By.CLASS_NAME, "format").get_attribute("textContent") == "pdf"
    page = facts.find_element(By.CLASS_NAME, "section").text.removeprefix("page ")
    assert page.isdigit() and int(page) > 1
    # The hit shows text from that page or a later one (from the PDF itself: each page names its number; the
    # snippet may start inside the chunk).
    shown = [int(n) for n in re.findall(r"says page (\d+)\.", pdf[0].find_element(By.CLASS_NAME, "text").text)]
    assert shown and min(shown) >= int(page), (page, shown)
    original = facts.find_element(By.CLASS_NAME, "original").get_attribute("href")
    assert original.endswith(f"/original?index=docs#page={page}") and "%2Fsurvey.pdf" in original, original
    # The link serves the file itself (with the key; the page fetches it so).
    status, headers, _ = server.get(original.split(server.url)[1].split("#")[0],
                                    headers={"Authorization": f"Bearer {KEY}"})
    assert status == 200 and headers["Content-Type"] == "application/pdf"

    # The title opens the document's text at the hit, marked and in view.
    chunk_text = pdf[0].find_element(By.CLASS_NAME, "text").text
    pdf[0].find_element(By.CSS_SELECTOR, "h2 a").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "document").is_displayed()
             and d.find_elements(By.CSS_SELECTOR, "#document-text mark"))
    mark = browser.find_element(By.CSS_SELECTOR, "#document-text mark")
    # The mark is the chunk (the hit shows it, or a snippet of it).
    assert " ".join(chunk_text.strip("… ").split()[1:5]) in " ".join(mark.text.split())
    assert "doc=" in browser.current_url and not browser.find_element(By.ID, "results").is_displayed()
    assert browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight", mark)
    screenshot(browser, "search-page-document.png")
    # Back: the same results again.
    browser.find_element(By.ID, "back").click()
    hits = results(browser)
    assert any("survey.pdf" in h.find_element(By.CLASS_NAME, "source").text for h in hits)


def test_original_file_opens_with_the_key(server, browser):
    """A link cannot send the API key: the page fetches the file with it and opens what it got (text as
    text, never as markup of this page's origin)."""
    from selenium.webdriver.common.by import By

    open_page(browser, server.url + "/ui")
    hits = search(browser, "evil notes script bold")
    evil = [h for h in hits if "évil.txt" in h.find_element(By.CLASS_NAME, "source").text]
    assert evil
    before = set(browser.window_handles)
    evil[0].find_element(By.CLASS_NAME, "original").click()
    wait_for(browser, lambda d: len(d.window_handles) > len(before))
    page = browser.current_window_handle
    browser.switch_to.window((set(browser.window_handles) - before).pop())
    try:
        wait_for(browser, lambda d: d.current_url.startswith("blob:") and "Evil notes" in d.page_source)
        assert browser.find_element(By.TAG_NAME, "body").text.strip() == MARKUP
        # In UTF-8, as the server said.
        assert browser.execute_script("return document.characterSet") == "UTF-8"
        assert browser.title != "pwned" and not browser.find_elements(By.TAG_NAME, "img")
    finally:
        browser.close()
        browser.switch_to.window(page)


def test_filters_and_pages(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(browser, server.url + "/ui")
    Select(browser.find_element(By.ID, "format")).select_by_value("pdf")
    hits = search(browser, "snow")
    assert hits and {h.find_element(By.CLASS_NAME, "format").text.lower() for h in hits} == {"pdf"}
    Select(browser.find_element(By.ID, "format")).select_by_value("")
    # A folder holds what lies below it, not a folder whose name it begins.
    folder = browser.find_element(By.ID, "folder")
    folder.send_keys(str(server.docs / "pets"))
    k = browser.find_element(By.ID, "k")
    k.clear()
    k.send_keys("2")
    first = search(browser, "run through the snow")
    sources = lambda hits: [h.find_element(By.CLASS_NAME, "source").text.split(" · ")[0] for h in hits]
    first = sources(first)  # the elements go with the page
    assert len(first) == 2 and all(s.startswith(str(server.docs / "pets") + "/") for s in first)
    assert browser.find_element(By.ID, "pager").is_displayed()
    assert not browser.find_element(By.ID, "previous").is_enabled()
    browser.find_element(By.ID, "next").click()
    wait_for(browser, lambda d: "page=2" in d.current_url)
    second = results(browser)
    assert browser.find_element(By.ID, "page").text == "Page 2"
    assert len(second) == 1 and sources(second)[0].startswith(str(server.docs / "pets") + "/")
    assert set(first).isdisjoint(sources(second))  # page 2 continues page 1
    assert browser.find_element(By.ID, "results").get_attribute("start") == "3"
    assert not browser.find_element(By.ID, "next").is_enabled()
    browser.find_element(By.ID, "previous").click()
    wait_for(browser, lambda d: "page=2" not in d.current_url)
    assert sources(results(browser)) == first


def test_relevance_and_snippet_when_the_server_gives_them(server, browser):
    open_page(browser, server.url + "/ui")
    shown = browser.execute_script("""
      const base = {document_id: "/d/a.txt", source: "/d/a.txt", title: "A", format: "text", section: "",
                    chunk_index: 0, chunk_begin: 0, chunk_end: 20, score: 0.5, text: "alpha beta gamma",
                    matches: [[6, 10]], metadata: {}};
      const withNew = renderHit({...base, relevance: 0.873, rank: 1, snippet: "…beta gamma…",
                                 snippet_matches: [[3, 7]]}, "docs", "");
      const without = renderHit(base, "docs", "");
      const marks = (li) => [...li.querySelectorAll("mark")].map((m) => m.textContent);
      return [withNew.textContent, marks(withNew), without.textContent, marks(without)];""")
    assert "87% relevant" in shown[0] and shown[1] == ["beta"] and "…beta gamma…" in shown[0]
    assert "relevant" not in shown[2] and shown[3] == ["beta"] and "alpha beta gamma" in shown[2]


def test_narrow_window_with_results_and_a_document(server, browser):
    from selenium.webdriver.common.by import By

    browser.set_window_size(360, 780)
    try:
        open_page(browser, server.url + "/ui")
        hits = search(browser, "glacier ice moves downhill")
        assert hits
        wider = "return document.documentElement.scrollWidth - window.innerWidth"
        assert browser.execute_script(wider) <= 0
        # Words break only between words; paths and ids anywhere.
        styles = browser.execute_script("""
          const style = (sel) => { const e = document.querySelector(sel); const c = getComputedStyle(e);
                                   return [c.overflowWrap, c.wordBreak, c.hyphens]; };
          return {text: style("#results .text"), source: style("#results .source"), title: style("#results h2"),
                  body: style("body")};""")
        assert styles["text"] == ["break-word", "normal", "manual"], styles
        assert styles["title"] == ["break-word", "normal", "manual"], styles
        assert styles["body"] == ["normal", "normal", "manual"], styles
        assert styles["source"][0] == "anywhere", styles
        hits[0].find_element(By.CSS_SELECTOR, "h2 a").click()
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#document-text mark"))
        assert browser.execute_script(wider) <= 0
        screenshot(browser, "search-page-document-narrow.png")
    finally:
        browser.set_window_size(1200, 900)
