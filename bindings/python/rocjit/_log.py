"""rocjit's diagnostics into Python's logging (rocjit_set_log_callback, issue 17).

Owns the one C callback object the library is given.  It must stay referenced for as long
as the library may call it (a collected CFUNCTYPE is a jump into freed memory), so it is a
module global, and it is taken back from the library at interpreter exit, before the
interpreter is torn down (the library writes usage records, and may warn, at exit).
"""

from __future__ import annotations

import atexit
import logging
import sys
import threading

from . import _lib

logger = logging.getLogger("rocjit")

# ROCJIT_LOG_ERROR 1, _WARN 2, _INFO 3, _DEBUG 4
_LEVELS = {1: logging.ERROR, 2: logging.WARNING, 3: logging.INFO, 4: logging.DEBUG}
# What the library writes before a message of the level on stderr (src/base/error.c).
_TAGS = {1: "error: ", 2: "warning: ", 4: "debug: "}


def _on_log(user, level, message):
    # Called from any thread, perhaps several at once; must not call rocjit, must not raise.
    try:
        text = message.decode("utf-8", "replace") if message else ""
        if logger.hasHandlers():
            logger.log(_LEVELS.get(level, logging.WARNING), "%s", text)
        else:
            # Logging not configured: print as the library would have (its ROCJIT_LOG level
            # filter already chose what reaches here), rather than logging's bare
            # last-resort output of warnings only.
            sys.stderr.write(f"rocjit: {_TAGS.get(level, '')}{text}\n")
    except Exception:  # noqa: BLE001 - an exception cannot cross into C
        pass


_CALLBACK = _lib.LOG_FN(_on_log)
_state = {"installed": False, "atexit": False, "chosen": False}
_lock = threading.Lock()


def available() -> bool:
    """Whether the loaded librocjit has rocjit_set_log_callback."""
    return _lib.load().has("rocjit_set_log_callback")


def log_to_python(enabled: bool = True) -> bool:
    """Routes rocjit's diagnostics to the "rocjit" logger (enabled) or back to stderr.

    On by default once the library is loaded.  Returns False when the library has no log
    hook (then diagnostics go to stderr whatever this says).
    """
    lib = _lib.load()
    if not lib.has("rocjit_set_log_callback"):
        return False
    with _lock:
        _state["chosen"] = True
        _set(lib, enabled)
    return True


def install_default() -> None:
    """Routes diagnostics to logging when the library is first used, unless the program
    chose already (log_to_python)."""
    lib = _lib.load()
    if not lib.has("rocjit_set_log_callback"):
        return
    with _lock:
        if not _state["chosen"]:
            _state["chosen"] = True
            _set(lib, True)


def _set(lib, enabled: bool) -> None:
    """Called with _lock held."""
    if enabled:
        lib.rocjit_set_log_callback(_CALLBACK, None)
        if not _state["atexit"]:
            atexit.register(_uninstall)
            _state["atexit"] = True
    else:
        lib.rocjit_set_log_callback(_lib.LOG_FN(), None)  # NULL: stderr again
    _state["installed"] = enabled


def _uninstall():
    lib = _lib._lib
    if lib is not None and _state["installed"] and lib.has("rocjit_set_log_callback"):
        lib.rocjit_set_log_callback(_lib.LOG_FN(), None)
        _state["installed"] = False
