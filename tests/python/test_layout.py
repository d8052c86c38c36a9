"""Every structure the package mirrors with ctypes has kmrun.h's layout.

The package declares kmrun.h's structures by hand (ctypes reads no
header); one that falls behind the header is memory corruption, not an
error: kmrun_session_opts_init writes the whole of the C structure into
the package's smaller one (seen: a crash in the interpreter's garbage
collector at exit).  So the C compiler says each structure's size and each
field's offset, and each ctypes structure must agree, field by field."""
import ctypes
import os
import shutil
import subprocess
import tempfile
import unittest

from kmrun import _lib

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def mirrored():
    """(ctypes class, C type name) for each non-opaque structure."""
    out = []
    for name in dir(_lib):
        cls = getattr(_lib, name)
        if isinstance(cls, type) and issubclass(cls, ctypes.Structure) and getattr(cls, "_fields_", None) and cls.__doc__:
            c_name = cls.__doc__.split()[0].rstrip(".:")
            if c_name.startswith("kmrun_"):
                out.append((cls, c_name))
    return sorted(out, key=lambda x: x[1])


@unittest.skipIf(shutil.which("cc") is None, "no C compiler")
class Layout(unittest.TestCase):
    def test_every_mirrored_structure_has_the_headers_layout(self):
        structs = mirrored()
        self.assertGreaterEqual(len(structs), 8, [c for _, c in structs])
        lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "kmrun.h"', 'int main(void) {']
        for cls, c_name in structs:
            lines.append(f'printf("{c_name} (sizeof) %zu\\n", sizeof({c_name}));')
            for field, _ in cls._fields_:
                lines.append(f'printf("{c_name} {field} %zu\\n", offsetof({c_name}, {field}));')
        lines.append("return 0; }")
        with tempfile.TemporaryDirectory() as d:
            src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
            with open(src, "w") as f:
                f.write("\n".join(lines) + "\n")
            cc = subprocess.run(["cc", "-std=c11", "-I", os.path.join(TOP, "include"), src, "-o", exe],
                                capture_output=True, text=True)
            self.assertEqual(cc.returncode, 0, cc.stderr)
            got = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split("\n")
        c = {}
        for line in got:
            if line:
                t, field, value = line.split()
                c[(t, field)] = int(value)
        for cls, c_name in structs:
            with self.subTest(struct=c_name):
                self.assertEqual(ctypes.sizeof(cls), c[(c_name, "(sizeof)")],
                                 f"{cls.__name__} is not the size of {c_name}: a field missing?")
                for field, _ in cls._fields_:
                    self.assertEqual(getattr(cls, field).offset, c[(c_name, field)],
                                     f"{cls.__name__}.{field} is not at {c_name}.{field}'s offset")


if __name__ == "__main__":
    unittest.main()
