"""Runs the package's tests (tests/python/test_*.py, the standard library's
unittest) and prints one TAP line a test: "ok - LABEL TEST" or "not ok -
LABEL TEST", a skipped one "ok - LABEL TEST # SKIP why"; a failure's
traceback follows its line as "# " comments.  Usage: tap.py LABEL.  Exit
status 0 only when nothing failed."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class TapResult(unittest.TestResult):
    def __init__(self, label):
        super().__init__()
        self.label = label

    def _line(self, ok, test, extra=""):
        name = test.id()
        print("%s - %s %s%s" % ("ok" if ok else "not ok", self.label, name, extra), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, " # SKIP " + reason)

    def _fail(self, test, err, kind):
        self._line(False, test)
        for line in self._exc_info_to_string(err, test).rstrip().splitlines():
            print("# " + line)
        sys.stdout.flush()

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err, "failure")

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err, "error")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line(True, test, " # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line(False, test, " (unexpected success)")


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = TapResult(label)
    suite.run(result)
    # An import error of a test file is a failed test of its own
    # (unittest's _FailedTest), counted above like any other.
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
