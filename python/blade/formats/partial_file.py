# SPDX-License-Identifier: MIT
"""
The life cycle every gr-blade writer of a whole file shares: the data go to
NAME.partial beside NAME; close() finishes the file and renames it to NAME;
abort() (also an exception inside a `with` block) removes the partial file, so a
failed run never leaves a file that looks complete, nor replaces a good one.
"""

import os


class PartialFile:
    """Base of writers that finish their file at close(). A subclass calls
    `_begin(path, overwrite)` before it opens `self._partial`, and implements
    `_finish()` (write what is left into `self._partial` and close it) and
    `_release()` (close without finishing; called again after a failed
    `_finish()`, so it must tolerate handles already closed)."""

    def _begin(self, path, overwrite):
        self.path = os.fspath(path)
        if os.path.exists(self.path) and not overwrite:
            raise FileExistsError(f"{self.path} exists (give overwrite=True to replace it)")
        self._partial = self.path + ".partial"
        self._open = True

    def _has_data(self):
        """True when there is something to write; close() refuses an empty file."""
        return True

    def _empty_reason(self):
        return "nothing to write"

    def _finish(self):
        raise NotImplementedError

    def _release(self):
        pass

    def close(self):
        """Finish the file and give it its name; returns the path."""
        if not self._open:
            return self.path
        if not self._has_data():
            self.abort()
            raise ValueError(f"{self.path}: {self._empty_reason()}")
        try:
            self._finish()
            os.replace(self._partial, self.path)
        except BaseException:
            self.abort()
            raise
        self._open = False
        return self.path

    def abort(self):
        """Forget the file: the partial file is removed, NAME is not made."""
        try:
            self._release()
        finally:
            self._open = False
            if os.path.exists(self._partial):
                os.remove(self._partial)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        if kind is None:
            self.close()
        else:
            self.abort()
        return False
