"""What the catalogue tests share: a pytest.raises that also checks the message's texts."""

from __future__ import annotations

import pytest


def raises(cls, *texts):
    """pytest.raises(cls) that also checks the message contains every text."""

    class _Check:
        def __enter__(self):
            self.ctx = pytest.raises(cls)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.ctx.__exit__(*exc)
            if not handled:
                return False
            message = str(self.info.value)
            for text in texts:
                assert text in message, f"{text!r} not in: {message}"
            return handled

    return _Check()
