# bench/iss: a program that exits at once (tohost = 1: exit code 0), for
# the start-up of `kmrun exec` and of QEMU, which bench/iss subtracts from
# QEMU's time for each program.
#include "test.h"
TEST_BEGIN
TEST_END
