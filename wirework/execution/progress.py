"""Progress of a fit pass: a callback for any front end, a bar on a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "progress"]

#: Show the bar only for passes that last longer than this many seconds.
DELAY = 1.0


class Progress:
    """Counts machines visited; calls ``callback``; draws a bar on stderr when it is a terminal.

    The bar uses ``tqdm`` when it is installed, else one line of text.
    """

    #: Someone watches (a bar or a callback): the scheduler reports each machine as its fit ends, rather than
    #: fetching together results nothing waits for (a flat ensemble's members) once all have ended.
    watched = True

    def __init__(self, total: int, *, show: bool = False, callback: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.total = total
        self.done = 0
        self.callback = callback
        self._start = time.perf_counter()
        self._show = show
        self._bar: Any = None

    def step(self, machine: Any, *, running: int = 0) -> None:
        self.done += 1
        if self.callback is None and not self._show:
            return
        event = {
            "done": self.done,
            "total": self.total,
            "machine": _label(machine),
            "action": machine.report()["action"],
            "running": running,
        }
        if self.callback is not None:
            self.callback(event)
        if self._show and time.perf_counter() - self._start > DELAY:
            self._draw(event)

    def _draw(self, event: dict[str, Any]) -> None:
        if self._bar is None:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=self.total, initial=self.done - 1, unit="machine", leave=False, file=sys.stderr)
            except ImportError:
                self._bar = False
        if self._bar:
            self._bar.set_postfix_str(event["machine"])
            self._bar.update(1)
        else:
            sys.stderr.write(f"\r[wirework] {self.done}/{self.total} machines — {event['machine']} {event['action']}   ")
            sys.stderr.flush()

    def close(self) -> None:
        if self._bar:
            self._bar.close()
        elif self._bar is False:
            sys.stderr.write("\n")


class _Quiet(Progress):
    """The progress of a pass that nobody watches: nothing to count, call or draw."""

    watched = False

    def __init__(self) -> None:
        super().__init__(0)

    def step(self, machine: Any, *, running: int = 0) -> None:
        pass

    def close(self) -> None:
        pass


_QUIET = _Quiet()


def progress(total: int, *, verbose: int = 1, callback: Callable[[dict[str, Any]], None] | None = None) -> Progress:
    """The progress of a pass over ``total`` machines: a bar when ``verbose`` and stderr is a
    terminal (and there is more than one machine), ``callback`` after each visit, or nothing."""
    show = bool(verbose) and total > 1 and getattr(sys.stderr, "isatty", lambda: False)()
    if callback is None and not show:
        return _QUIET
    return Progress(total, show=show, callback=callback)


def _label(machine: Any) -> str:
    return machine.name or type(machine.model).__name__
