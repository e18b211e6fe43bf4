"""The console's pages driven in a real headless browser: every control a person uses, in English and Chinese, on a
store of two users, with every request the page makes recorded; then the store itself is checked. And the console
read-only beside a process that holds the store.

Needs Debian's ``chromium-headless-shell`` (or ``chromium``) and pip's ``playwright`` (its own browser download
cannot work offline; the tests hand it the system's browser): ``apt-get install chromium-headless-shell
fonts-wqy-microhei`` and ``pip install playwright`` (``.ci/run`` does both). Without them the tests skip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider

pytestmark = [pytest.mark.slow, pytest.mark.real_model]

ROOT = Path(__file__).resolve().parents[2]
BROWSER = os.environ.get("HERMES_TEST_CHROMIUM") or next(
    (p for name in ("chromium-headless-shell", "chromium", "chromium-browser") if (p := shutil.which(name))), None)
HOW = ("apt-get install chromium-headless-shell fonts-wqy-microhei && pip install playwright (or set "
       "HERMES_TEST_CHROMIUM to a Chromium binary)")
try:
    from playwright.sync_api import Dialog, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]
if sync_playwright is None or BROWSER is None:
    pytest.skip(f"needs a headless Chromium and playwright: {HOW}", allow_module_level=True)

FACT_OLD, FACT_NEW = "I live in Hangzhou", "I live in Shanghai now"
COFFEE = "用户喜欢喝美式咖啡"
BOB = "Bob's project codename is Falcon"


def build_store(data: Path) -> dict[str, str]:
    """Two users; alice has a fact that changed (two versions), a Chinese memory and a conversation."""
    with MemoryProvider(MemoryConfig(data_dir=data), caller=Caller.admin("tests")) as mem:
        fact = mem.add(FACT_OLD, user_id="alice", memory_type="permanent")
        mem.update(fact, FACT_NEW, user_id="alice", version_note="moved to Shanghai")
        return {"fact": fact, "coffee": mem.add(COFFEE, user_id="alice"),
                "python": mem.add("The user prefers Python over Java", user_id="alice"),
                "tea": mem.add("The user drinks green tea in the afternoon", user_id="alice"),
                "bob": mem.add(BOB, user_id="bob")}


class Console:
    """``hermes-memory console`` in a child process; its printed address."""

    def __init__(self, data: Path, *extra: str) -> None:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "hermes_memory_core.cli", "console", "--data-dir",
                                      str(data), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env, cwd=ROOT)
        assert self.proc.stdout is not None
        lines = [self.proc.stdout.readline() for _ in range(2)]
        address = [w for line in lines for w in line.split() if w.startswith("http://")]
        if not address:
            self.proc.kill()
            raise AssertionError(f"the console did not start: {lines} {self.proc.stderr.read()}")  # type: ignore[union-attr]
        self.url = address[0]
        self.base = self.url.split("/?")[0]

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        _out, err = self.proc.communicate(timeout=30)
        return err


def status_of(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as res:
            return int(res.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.fixture
def browser() -> Iterator[Any]:
    assert sync_playwright is not None
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=BROWSER)
        yield b
        b.close()


def open_page(browser: Any, url: str, requests: list[str], dialogs: list[str]) -> Page:
    page = browser.new_page(viewport={"width": 1300, "height": 900}, locale="en-US")
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))

    def accept(d: Dialog) -> None:
        dialogs.append(d.message)
        d.accept()

    page.on("dialog", accept)
    page.goto(url)
    page.wait_for_function("document.querySelectorAll('#user option').length > 1")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def test_every_control_on_a_store_of_two_users(tmp_path: Path, browser: Any) -> None:
    data = tmp_path / "store"
    ids = build_store(data)
    console = Console(data)
    requests: list[str] = []
    dialogs: list[str] = []
    try:
        assert status_of(console.base + "/") == 401 and status_of(console.base + "/?token=nope") == 403
        assert status_of(console.base + "/api/info") == 401
        page = open_page(browser, console.url, requests, dialogs)
        page.get_by_label("User", exact=True).select_option("alice")
        list_ = page.locator("#list")
        list_.get_by_text(COFFEE).wait_for()
        for text in (FACT_NEW, COFFEE, "The user prefers Python over Java"):
            assert list_.get_by_text(text).is_visible()
        assert BOB not in page.content()  # the other user's memories never show
        assert list_.locator("[data-kind=facts]").get_by_text("permanent fact").is_visible()

        # search, open the changed fact, read its history
        page.get_by_label("Search memories").fill("Where do I live")
        page.get_by_label("Search memories").press("Enter")
        page.locator("#list [data-kind=search]").wait_for()
        list_.get_by_text(FACT_NEW).click()
        page.get_by_role("button", name="History").click()
        history = page.locator("#history-list li")
        history.nth(1).wait_for()
        assert history.nth(0).inner_text().count(FACT_OLD) == 1 and "moved to Shanghai" in history.nth(1).inner_text()

        # edit into a new version
        page.get_by_role("button", name="Edit").click()
        page.get_by_label("New text").fill("I live in Suzhou")
        page.get_by_role("button", name="Save as new version").click()
        page.get_by_text("Saved as version 3.").wait_for()
        assert history.count() == 3 and "I live in Suzhou" in page.locator("#detail-text").inner_text()

        # delete one, after the confirmation
        page.get_by_role("button", name="Show all").click()
        list_.get_by_text("The user drinks green tea in the afternoon").click()
        page.get_by_role("button", name="Delete").click()
        page.get_by_text("Deleted.").wait_for()
        assert dialogs and "Delete this memory" in dialogs[0]
        assert list_.get_by_text("green tea").count() == 0

        # bulk: select two, preview an export, then a removal that shows what goes before it goes
        list_.locator("input[type=checkbox]").nth(0).check()
        page.get_by_role("button", name="Export selected").click()
        page.get_by_text("These 1 memories will be exported:").wait_for()
        with page.expect_download() as download:
            page.get_by_role("button", name="Download export").click()
        assert "I live in Suzhou" in Path(download.value.path()).read_text(encoding="utf-8")
        page.locator(f"#list a[data-id='{ids['python']}']").locator("..").locator("input").check()
        page.get_by_role("button", name="Remove selected").click()
        preview = page.locator("#preview-list li")
        preview.nth(1).wait_for()
        assert "The user prefers Python over Java" in page.locator("#preview-list").inner_text()
        page.get_by_role("button", name="Cancel").click()
        assert list_.get_by_text("The user prefers Python over Java").is_visible()  # cancelled: nothing went

        # Chinese: the labels, and a search in Chinese
        page.get_by_label("Language").select_option("zh")
        assert page.get_by_label("用户", exact=True).is_visible()
        page.get_by_label("搜索记忆").fill("咖啡")
        page.get_by_label("搜索记忆").press("Enter")
        page.locator("#list [data-kind=search]").get_by_text(COFFEE).wait_for()
        assert page.get_by_role("button", name="历史版本").is_visible()
        page.get_by_role("button", name="召回检查").click()
        page.get_by_label("像智能体一样提问").fill("我喜欢喝什么咖啡？")
        page.get_by_role("button", name="检查召回").click()
        page.locator("#recall-out pre").wait_for()
        assert "召回门控" in page.locator("#recall-out").inner_text()
        page.get_by_role("button", name="健康状况").click()
        page.locator("#health-out svg rect").first.wait_for()
        page.get_by_label("Language").or_(page.get_by_label("语言")).select_option("en")
        page.get_by_role("button", name="Memories").click()

        # forget the user: type the id to confirm
        page.get_by_role("button", name="Forget this user").click()
        forget = page.get_by_role("button", name="Forget", exact=True)
        assert forget.is_disabled()
        page.get_by_label("Type the user id to confirm").fill("alice")
        forget.click()
        page.get_by_text("Erased user alice").wait_for()
        assert "Nothing of the user is left" in page.locator("#erasure-report").inner_text()
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        err = console.stop()
    hosts = {r.split("/")[2] for r in requests}
    assert hosts == {console.base.split("/")[2]} and all(h.startswith("127.0.0.1:") for h in hosts), requests
    assert "Traceback" not in err
    # the store itself: the edit is a third version, the deletion kept its history, alice is gone, bob untouched
    with MemoryProvider(MemoryConfig(data_dir=data, read_only=True), caller=Caller.admin("tests")) as mem:
        assert mem.stats().by_user == {"bob": 1}
        assert mem.get(ids["bob"]).content == BOB
        assert mem.list_memories(user_id="alice") == []


def test_read_only_beside_a_process_that_holds_the_store(tmp_path: Path, browser: Any) -> None:
    data = tmp_path / "store"
    build_store(data)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from hermes_memory_core import MemoryConfig, MemoryProvider
        mem = MemoryProvider(MemoryConfig(data_dir={str(data)!r}))
        mem.session("alice", "s1").add_messages([("user", "I am planning a trip to Kyoto next spring")])
        mem.flush()
        print("holding", flush=True)
        sys.stdin.read()
        mem.close()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        files = sorted(p for p in data.rglob("*") if p.is_file())
        before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
        console = Console(data, "--read-only")
        requests: list[str] = []
        try:
            page = open_page(browser, console.url, requests, [])
            page.get_by_label("User", exact=True).select_option("alice")
            page.locator("#list").get_by_text(FACT_NEW).wait_for()
            assert page.get_by_text("read-only: nothing can be changed").is_visible()
            page.get_by_label("Search memories").fill("Shanghai")  # searched as one types, no Enter needed
            page.locator("#list [data-kind=search]").get_by_text(FACT_NEW).wait_for()
            page.get_by_label("Search memories").fill("coffee 咖啡")
            page.get_by_label("Search memories").press("Enter")
            page.locator("#list [data-kind=search]").get_by_text(COFFEE).wait_for()
            page.get_by_role("button", name="History").click()
            for name in ("Edit", "Delete", "Forget this user", "Remove selected", "Save as new version"):
                assert page.get_by_role("button", name=name).count() == 0, name
            assert page.get_by_label("New text").count() == 0 and page.locator("#history-list li").first.is_visible()
            assert BOB not in page.content()
        finally:
            console.stop()
        after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
        assert after == before and sorted(p for p in data.rglob("*") if p.is_file()) == files  # no byte written
        assert all(r.split("/")[2].startswith("127.0.0.1:") for r in requests)
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
