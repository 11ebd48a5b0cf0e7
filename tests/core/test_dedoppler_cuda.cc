// SPDX-License-Identifier: MIT
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include "device_memory.h"
bool init_unit_test() { return true; }
int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
