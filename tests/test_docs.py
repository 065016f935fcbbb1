"""The code examples of README.md and docs/*.md run, and show what the code prints.

Each page's fenced code blocks are read in order and the ``python`` ones run
in one namespace per page, in a fresh temporary directory: a block holding
``>>>`` prompts runs as a doctest (its shown output is compared, with
``ELLIPSIS`` as for the package's doctests), any other as a script. A block
that must not run is preceded by a line ``<!-- skip: reason -->``; each one
is reported as a skipped test naming the page, the line and the reason. A
block that is neither ``python`` nor marked fails the test: every block
either runs or says why it does not.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import sklearn
from threadpoolctl import threadpool_limits

import wirework as ww

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>```+|~~~+)(?P<info>[^`]*)$")
_SKIP = re.compile(r"^<!--\s*skip:\s*(?P<reason>.+?)\s*-->$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    skip: str | None  # the reason given in a ``<!-- skip: ... -->`` mark

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}, line {self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of one markdown page, in order."""
    found = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening["fence"]
        start = i + 1
        end = start
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        if end == len(lines):
            raise AssertionError(f"{page.name}, line {i + 1}: a code fence that is never closed")
        previous = next((text.strip() for text in reversed(lines[:i]) if text.strip()), "")
        mark = _SKIP.match(previous)
        language = opening["info"].strip().split(" ")[0].lower()
        code = "\n".join(lines[start:end]) + "\n"
        found.append(Block(page, i + 1, language, code, mark["reason"] if mark else None))
        i = end + 1
    return found


ALL_BLOCKS = [block for page in PAGES for block in blocks(page)]
RUN = [page for page in PAGES if any(block.skip is None for block in blocks(page))]
NOT_RUN = [block for block in ALL_BLOCKS if block.skip is not None]


def test_the_pages_are_found():
    assert {page.name for page in PAGES} >= {"README.md", "index.md", "graph.md", "compose.md", "export.md"}


def test_every_block_runs_or_says_why_not():
    unmarked = [block.where for block in ALL_BLOCKS if block.skip is None and block.language != "python"]
    assert not unmarked, (
        f"Code blocks neither in python nor preceded by <!-- skip: reason -->: {unmarked}. "
        "Write the example in python, or say why it cannot run in the test suite."
    )


#: The blocks the suite does not run, by page, with the reason their mark gives: one place that lists them all.
NOT_RUN_LISTED = {
    ("README.md", "shell commands: install the package, run the demo and the whole test suite"),
    ("index.md", "a diagram of the layers, not code"),
}


def test_the_blocks_not_run_are_the_listed_ones():
    marked = {(block.page.name, block.skip) for block in NOT_RUN}
    assert marked == NOT_RUN_LISTED, (
        f"Blocks marked <!-- skip: reason --> now: {sorted(marked)}; listed in NOT_RUN_LISTED: "
        f"{sorted(NOT_RUN_LISTED)}. A block marked not to run must be listed there with its reason."
    )


def _run(block: Block, namespace: dict) -> None:
    if ">>>" not in block.code:
        padded = "\n" * block.line + block.code  # tracebacks give the page's line numbers
        exec(compile(padded, str(block.page), "exec"), namespace)
        return
    name = f"{block.page.name}:{block.line}"
    test = doctest.DocTestParser().get_doctest(block.code, namespace, name, str(block.page), block.line)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=report.append, clear_globs=False)
    namespace.update(test.globs)  # the doctest ran on a copy; later blocks see its names
    if runner.failures:
        pytest.fail(f"{block.where}: the example does not show what the code gives\n" + "".join(report), pytrace=False)


@pytest.mark.parametrize("page", RUN, ids=lambda page: page.name)
def test_examples(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files the examples write (model.onnx) land here
    namespace = {"__name__": f"docs_{page.stem.lower()}"}
    with ww.config_context(), sklearn.config_context(), threadpool_limits(1):  # 2 shared cores: one inner thread
        for block in blocks(page):
            if block.skip is None:
                _run(block, namespace)


# -- every public name shows how it is used (STYLE: a runnable Examples section, run by --doctest-modules) --

#: Public values that cannot carry a docstring of their own, and where they are documented instead.
CONSTANTS = {"wirework.__version__": "the package metadata", "wirework.onnx.UNKNOWN_CODE": "wirework.onnx's docstring"}


def _public() -> list[tuple[str, object]]:
    import wirework.onnx

    return [(f"{module.__name__}.{name}", getattr(module, name)) for module in (ww, wirework.onnx) for name in module.__all__]


def test_every_public_name_has_an_examples_section():
    lacking = [name for name, obj in _public() if name not in CONSTANTS and "Examples\n" not in (obj.__doc__ or "")]
    assert not lacking, f"Public names without a numpydoc Examples section: {lacking}"


def test_the_public_constants_are_documented_where_said():
    import wirework.onnx

    assert {name for name, obj in _public() if isinstance(obj, (str, int, float))} == set(CONSTANTS)
    assert "``UNKNOWN_CODE``" in wirework.onnx.__doc__ and "ww.onnx.UNKNOWN_CODE" in wirework.onnx.__doc__
