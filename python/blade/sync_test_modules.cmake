# SPDX-License-Identifier: MIT
# Copy the Python package (SOURCE) to the folder the tests import it from (DESTINATION),
# removing the .py files there that the source no longer has: a module moved into a
# subpackage must not stay importable from its old place in the tests.
file(GLOB_RECURSE copied RELATIVE "${DESTINATION}" "${DESTINATION}/*.py")
foreach(name IN LISTS copied)
    if(NOT EXISTS "${SOURCE}/${name}")
        file(REMOVE "${DESTINATION}/${name}")
    endif()
endforeach()
file(COPY "${SOURCE}/" DESTINATION "${DESTINATION}")
