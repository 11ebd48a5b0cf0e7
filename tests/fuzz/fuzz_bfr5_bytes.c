/* SPDX-License-Identifier: MIT */
/*
 * BFR5 recipes as raw file bytes: the input is written to a file and read with
 * blade_bfr5_read(). Nearly every execution ends inside libhdf5's own parser, which
 * has known crashes on corrupted files that are not ours to fix, so this target is
 * not part of CI (fuzz_bfr5_recipe fuzzes what is ours). It is run by hand, with a
 * time budget, and its crashes sorted into HDF5-internal and ours:
 *
 *     tools/hostile-input bfr5-bytes
 *
 * Properties: a refused file has a message naming it; an accepted one has usable
 * sizes. Seeds: recipes written by blade.write_bfr5 (tests/fuzz/make-seeds).
 */
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const char* path = fuzz_write_file("recipe.bfr5", data, size);
    blade_bfr5* recipe = NULL;
    blade_clear_error();
    const blade_status status = blade_bfr5_read(path, &recipe);
    FUZZ_REQUIRE_MESSAGE(status);
    if (status != BLADE_OK) {
        FUZZ_REQUIRE(recipe == NULL && strstr(blade_last_error(), path) != NULL,
                     "the message does not name the file: %s",
                     blade_last_error());
        return 0;
    }
    FUZZ_REQUIRE(recipe->antennas >= 1 && recipe->polarizations >= 1 && recipe->channels >= 1 &&
                     recipe->beams >= 1 && recipe->times >= 0,
                 "sizes %lld %lld %lld %lld %lld",
                 (long long)recipe->antennas,
                 (long long)recipe->polarizations,
                 (long long)recipe->channels,
                 (long long)recipe->beams,
                 (long long)recipe->times);
    blade_bfr5_free(recipe);
    return 0;
}
