/* SPDX-License-Identifier: MIT */
/*
 * BFR5 recipe reader (HDF5 C API). Every dataset is opened by path, its type class
 * and shape checked against /diminfo before anything is read into buffers sized
 * from those checked dimensions, so a malformed file cannot make us read or write
 * out of bounds. Messages name the file and the dataset.
 */
#include "file_io.h"
#include "internal.h"

#include <blade/astrometry.h>
#include <blade/io/bfr5.h>

#include <hdf5.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK 4
/* Most bytes one dataset may take in memory. Real recipes hold well under 100 MB
 * (MeerKAT's cal_all: 64 antennas x 2 pol x 32768 channels x 16 B = 64 MiB); a
 * file claiming more is refused before anything is allocated, so that a few
 * kilobytes of HDF5 with chunked, unwritten datasets cannot make us allocate and
 * fill terabytes. */
#define MAX_DATASET_BYTES (INT64_C(1) << 30)

typedef enum value_kind { KIND_INTEGER, KIND_REAL, KIND_COMPLEX, KIND_STRING } value_kind;

static const char* kind_name(value_kind kind)
{
    switch (kind) {
    case KIND_INTEGER:
        return "an integer";
    case KIND_REAL:
        return "a real number (float32 or float64)";
    case KIND_COMPLEX:
        return "complex (a compound with float members r and i)";
    case KIND_STRING:
        return "a string";
    }
    return "?";
}

typedef struct reader {
    const char* path;
    hid_t file;
} reader;

/* "BFR5 recipe <path>: <dataset>: <problem>" */
static blade_status BLADE_PRINTF(4, 5) dataset_error(
    const reader* r, blade_status status, const char* dataset, const char* format, ...)
{
    char problem[512];
    va_list args;
    va_start(args, format);
    vsnprintf(problem, sizeof problem, format, args);
    va_end(args);
    return blade_fail(status, "BFR5 recipe %s: %s: %s", r->path, dataset, problem);
}

/* ---- datasets: existence, type, shape ------------------------------------------ */

/* H5Lexists on "/a/b" fails when "/a" is missing, so walk the path. */
static bool dataset_exists(hid_t file, const char* path)
{
    char partial[256];
    const size_t length = strlen(path);
    if (length >= sizeof partial)
        return false;
    for (size_t i = 1; i <= length; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        memcpy(partial, path, i);
        partial[i] = '\0';
        if (H5Lexists(file, partial, H5P_DEFAULT) <= 0)
            return false;
    }
    return true;
}

/* Open `name`; a missing optional dataset gives *dataset = -1 and BLADE_OK. */
static blade_status open_dataset(const reader* r, const char* name, bool required, hid_t* dataset)
{
    *dataset = -1;
    if (!dataset_exists(r->file, name)) {
        if (required)
            return dataset_error(r, BLADE_ERROR_FORMAT, name, "required dataset is missing");
        return BLADE_OK;
    }
    /* An external link would make HDF5 open whatever file a stranger named (a
     * FIFO blocks forever); a recipe is one self-contained file. */
    H5L_info_t link;
    if (H5Lget_info(r->file, name, &link, H5P_DEFAULT) >= 0 && link.type == H5L_TYPE_EXTERNAL)
        return dataset_error(
            r, BLADE_ERROR_FORMAT, name, "is a link to another file; a recipe must hold its data");
    *dataset = H5Dopen2(r->file, name, H5P_DEFAULT);
    if (*dataset < 0)
        return dataset_error(
            r, BLADE_ERROR_FORMAT, name, "is not a readable dataset (a group, or corrupted)");
    return BLADE_OK;
}

static blade_status check_kind(const reader* r, const char* name, hid_t dataset, value_kind kind)
{
    const hid_t type = H5Dget_type(dataset);
    if (type < 0)
        return dataset_error(r, BLADE_ERROR_FORMAT, name, "its type cannot be read");
    const H5T_class_t class = H5Tget_class(type);
    bool fits = false;
    switch (kind) {
    case KIND_INTEGER:
        fits = class == H5T_INTEGER;
        break;
    case KIND_REAL:
        fits = class == H5T_FLOAT || class == H5T_INTEGER;
        break;
    case KIND_STRING:
        fits = class == H5T_STRING;
        break;
    case KIND_COMPLEX:
        if (class == H5T_COMPOUND) {
            const int re = H5Tget_member_index(type, "r");
            const int im = H5Tget_member_index(type, "i");
            fits = re >= 0 && im >= 0 && H5Tget_member_class(type, (unsigned)re) == H5T_FLOAT &&
                   H5Tget_member_class(type, (unsigned)im) == H5T_FLOAT;
        }
        break;
    }
    static const char* const class_names[] = { "integer",         "float",     "time",
                                               "string",          "bitfield",  "opaque",
                                               "compound",        "reference", "enum",
                                               "variable-length", "array" };
    const char* found = class >= 0 && (size_t) class < sizeof class_names / sizeof *class_names
                            ? class_names[class]
                            : "unknown";
    H5Tclose(type);
    if (!fits)
        return dataset_error(r,
                             BLADE_ERROR_FORMAT,
                             name,
                             "expected %s, found an HDF5 %s type%s",
                             kind_name(kind),
                             found,
                             class == H5T_COMPOUND ? " without float members r and i" : "");
    return BLADE_OK;
}

static void format_dims(char* text, size_t size, int rank, const hsize_t* dims)
{
    size_t used = (size_t)snprintf(text, size, "(");
    for (int i = 0; i < rank && used < size; i++)
        used += (size_t)snprintf(
            text + used, size - used, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
    if (used < size)
        snprintf(text + used, size - used, rank == 1 ? ",)" : ")");
}

/* Check the dataspace against `rank` extents (rank 0: a scalar, also accepted as
 * shape (1,)). `meaning` says what the axes are, for the message. */
static blade_status check_shape(const reader* r,
                                const char* name,
                                hid_t dataset,
                                int rank,
                                const int64_t* expected,
                                const char* meaning)
{
    const hid_t space = H5Dget_space(dataset);
    if (space < 0)
        return dataset_error(r, BLADE_ERROR_FORMAT, name, "its shape cannot be read");
    const int found_rank = H5Sget_simple_extent_ndims(space);
    hsize_t found[MAX_RANK] = { 0 };
    const bool readable = found_rank >= 0 && found_rank <= MAX_RANK &&
                          H5Sget_simple_extent_dims(space, found, NULL) >= 0;
    const H5S_class_t class = H5Sget_simple_extent_type(space);
    H5Sclose(space);
    if (class == H5S_NULL)
        return dataset_error(r, BLADE_ERROR_FORMAT, name, "is empty (null dataspace)");
    if (!readable)
        return dataset_error(
            r, BLADE_ERROR_FORMAT, name, "has rank %d, expected %d", found_rank, rank);

    bool fits = found_rank == rank;
    for (int i = 0; fits && i < rank; i++)
        fits = found[i] == (hsize_t)expected[i];
    if (rank == 0 && found_rank == 1 && found[0] == 1)
        fits = true;
    if (!fits) {
        char want[96], got[96];
        hsize_t dims[MAX_RANK] = { 0 };
        for (int i = 0; i < rank; i++)
            dims[i] = (hsize_t)expected[i];
        format_dims(want, sizeof want, rank, dims);
        format_dims(got, sizeof got, found_rank, found);
        return dataset_error(r,
                             BLADE_ERROR_FORMAT,
                             name,
                             "expected shape %s%s%s, found %s",
                             rank == 0 ? "() (a scalar)" : want,
                             meaning[0] ? " " : "",
                             meaning,
                             got);
    }
    return BLADE_OK;
}

/* The extents of a dataset (for datasets whose length is not known beforehand). */
static blade_status
dataset_dims(const reader* r, const char* name, hid_t dataset, int* rank, hsize_t* dims)
{
    const hid_t space = H5Dget_space(dataset);
    *rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    const bool ok =
        *rank >= 0 && *rank <= MAX_RANK && H5Sget_simple_extent_dims(space, dims, NULL) >= 0;
    if (space >= 0)
        H5Sclose(space);
    if (!ok)
        return dataset_error(r, BLADE_ERROR_FORMAT, name, "its shape cannot be read");
    return BLADE_OK;
}

/* Elements of a dataset of extents `dims` (each 0 .. 2^24, from /diminfo), refused
 * when they would take more than MAX_DATASET_BYTES of `element` bytes. */
static blade_status count_of(const reader* r,
                             const char* name,
                             int rank,
                             const int64_t* dims,
                             size_t element,
                             int64_t* count)
{
    const int64_t most = MAX_DATASET_BYTES / (int64_t)element;
    *count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] != 0 && *count > most / dims[i])
            return dataset_error(r,
                                 BLADE_ERROR_FORMAT,
                                 name,
                                 "the /diminfo sizes make it larger than %lld MiB in "
                                 "memory; real recipes are far smaller",
                                 (long long)(MAX_DATASET_BYTES >> 20));
        *count *= dims[i];
    }
    return BLADE_OK;
}

/* Open `name` and check its kind and shape; a missing optional dataset gives
 * *dataset = -1 and BLADE_OK. On success the caller closes *dataset. */
static blade_status open_checked(const reader* r,
                                 const char* name,
                                 bool required,
                                 value_kind kind,
                                 int rank,
                                 const int64_t* dims,
                                 const char* meaning,
                                 hid_t* dataset)
{
    BLADE_TRY(open_dataset(r, name, required, dataset));
    if (*dataset < 0)
        return BLADE_OK;
    blade_status status = check_kind(r, name, *dataset, kind);
    if (status == BLADE_OK)
        status = check_shape(r, name, *dataset, rank, dims, meaning);
    if (status != BLADE_OK) {
        H5Dclose(*dataset);
        *dataset = -1;
    }
    return status;
}

/* ---- typed reads ------------------------------------------------------------------ */

static blade_status
read_values(const reader* r, const char* name, hid_t dataset, hid_t memory_type, void* out)
{
    if (H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
        return dataset_error(r,
                             BLADE_ERROR_FORMAT,
                             name,
                             "could not be read or converted (truncated or corrupted file?)");
    return BLADE_OK;
}

/* Read a numeric dataset of `kind` and shape into a new array (complex: 2 doubles
 * per value). A missing optional one leaves *out NULL. */
static blade_status read_numeric(const reader* r,
                                 const char* name,
                                 bool required,
                                 value_kind kind,
                                 int rank,
                                 const int64_t* dims,
                                 const char* meaning,
                                 void** out)
{
    *out = NULL;
    hid_t dataset;
    BLADE_TRY(open_checked(r, name, required, kind, rank, dims, meaning, &dataset));
    if (dataset < 0)
        return BLADE_OK;
    const size_t element = kind == KIND_COMPLEX   ? 2 * sizeof(double)
                           : kind == KIND_INTEGER ? sizeof(int64_t)
                                                  : sizeof(double);
    int64_t count;
    blade_status status = count_of(r, name, rank, dims, element, &count);
    if (status != BLADE_OK) {
        H5Dclose(dataset);
        return status;
    }
    status = blade_alloc_object((size_t)(count > 0 ? count : 1) * element, name, out);
    if (status == BLADE_OK && count > 0) {
        hid_t memory_type = -1;
        if (kind == KIND_INTEGER) {
            memory_type = H5Tcopy(H5T_NATIVE_INT64);
        } else if (kind == KIND_REAL) {
            memory_type = H5Tcopy(H5T_NATIVE_DOUBLE);
        } else {
            /* Members are matched by name, so the file's order, width and any
             * extra members do not matter. */
            memory_type = H5Tcreate(H5T_COMPOUND, 2 * sizeof(double));
            H5Tinsert(memory_type, "r", 0, H5T_NATIVE_DOUBLE);
            H5Tinsert(memory_type, "i", sizeof(double), H5T_NATIVE_DOUBLE);
        }
        status = read_values(r, name, dataset, memory_type, *out);
        H5Tclose(memory_type);
    }
    H5Dclose(dataset);
    if (status != BLADE_OK) {
        free(*out);
        *out = NULL;
    }
    return status;
}

static blade_status read_scalar(const reader* r, const char* name, value_kind kind, void* value)
{
    void* array;
    BLADE_TRY(read_numeric(r, name, true, kind, 0, NULL, "", &array));
    memcpy(value, array, kind == KIND_INTEGER ? sizeof(int64_t) : sizeof(double));
    free(array);
    return BLADE_OK;
}

static char* duplicate_trimmed(const char* text, size_t length)
{
    while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\0'))
        length--;
    char* copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* Read `count` strings (a scalar when rank is 0), fixed- or variable-length, into a
 * new array of new strings. A missing optional dataset leaves *out NULL. */
static blade_status read_strings(const reader* r,
                                 const char* name,
                                 bool required,
                                 int rank,
                                 const int64_t* dims,
                                 const char* meaning,
                                 char*** out)
{
    *out = NULL;
    hid_t dataset;
    BLADE_TRY(open_checked(r, name, required, KIND_STRING, rank, dims, meaning, &dataset));
    if (dataset < 0)
        return BLADE_OK;
    int64_t elements;
    blade_status status = count_of(r, name, rank, dims, 64, &elements);
    if (status != BLADE_OK) {
        H5Dclose(dataset);
        return status;
    }
    const size_t count = (size_t)elements;
    char** strings = calloc(count > 0 ? count : 1, sizeof(char*));
    const hid_t file_type = H5Dget_type(dataset);
    const hid_t memory_type = H5Tcopy(H5T_C_S1);
    const bool variable = file_type >= 0 && H5Tis_variable_str(file_type) > 0;
    const size_t width = file_type >= 0 ? H5Tget_size(file_type) : 0;
    char* fixed = NULL;
    if (strings == NULL || file_type < 0 || memory_type < 0) {
        status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: could not allocate strings", name);
        goto done;
    }
    /* Same character set as the file: HDF5 does not convert between ASCII and UTF-8. */
    H5Tset_cset(memory_type, H5Tget_cset(file_type));
    if (variable) {
        char** pointers = calloc(count > 0 ? count : 1, sizeof(char*));
        if (pointers == NULL) {
            status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: could not allocate strings", name);
            goto done;
        }
        H5Tset_size(memory_type, H5T_VARIABLE);
        status = read_values(r, name, dataset, memory_type, pointers);
        for (size_t i = 0; status == BLADE_OK && i < count; i++) {
            const char* text = pointers[i] ? pointers[i] : "";
            strings[i] = duplicate_trimmed(text, strlen(text));
            if (strings[i] == NULL)
                status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: could not copy strings", name);
        }
        const hid_t space = H5Dget_space(dataset);
        if (space >= 0) {
#if H5_VERSION_GE(1, 12, 0)
            H5Treclaim(memory_type, space, H5P_DEFAULT, pointers);
#else
            H5Dvlen_reclaim(memory_type, space, H5P_DEFAULT, pointers);
#endif
            H5Sclose(space);
        }
        free(pointers);
    } else {
        if (width == 0 || width > (1u << 20)) {
            status = dataset_error(
                r, BLADE_ERROR_FORMAT, name, "has an invalid string width %zu", width);
            goto done;
        }
        if ((int64_t)((width + 1) * count) > MAX_DATASET_BYTES) {
            status = dataset_error(r,
                                   BLADE_ERROR_FORMAT,
                                   name,
                                   "%zu strings of %zu bytes: larger than %lld MiB",
                                   count,
                                   width,
                                   (long long)(MAX_DATASET_BYTES >> 20));
            goto done;
        }
        H5Tset_size(memory_type, width + 1);
        H5Tset_strpad(memory_type, H5T_STR_NULLTERM);
        fixed = calloc(count > 0 ? count : 1, width + 1);
        if (fixed == NULL) {
            status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: could not allocate strings", name);
            goto done;
        }
        status = read_values(r, name, dataset, memory_type, fixed);
        for (size_t i = 0; status == BLADE_OK && i < count; i++) {
            const char* text = fixed + i * (width + 1);
            size_t length = 0;
            while (length < width && text[length] != '\0')
                length++;
            strings[i] = duplicate_trimmed(text, length);
            if (strings[i] == NULL)
                status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: could not copy strings", name);
        }
    }
done:
    free(fixed);
    if (memory_type >= 0)
        H5Tclose(memory_type);
    if (file_type >= 0)
        H5Tclose(file_type);
    H5Dclose(dataset);
    if (status != BLADE_OK) {
        for (size_t i = 0; strings != NULL && i < count; i++)
            free(strings[i]);
        free(strings);
        return status;
    }
    *out = strings;
    return BLADE_OK;
}

static blade_status read_string(const reader* r, const char* name, bool required, char** out)
{
    char** strings;
    *out = NULL;
    BLADE_TRY(read_strings(r, name, required, 0, NULL, "", &strings));
    if (strings != NULL) {
        *out = strings[0];
        free(strings);
    }
    return BLADE_OK;
}

/* ---- the groups -------------------------------------------------------------------- */

static blade_status read_diminfo(const reader* r, blade_bfr5* recipe)
{
    struct {
        const char* name;
        int64_t* value;
        int64_t minimum;
    } dims[] = {
        { "/diminfo/nants", &recipe->antennas, 1 }, { "/diminfo/npol", &recipe->polarizations, 1 },
        { "/diminfo/nchan", &recipe->channels, 1 }, { "/diminfo/nbeams", &recipe->beams, 1 },
        { "/diminfo/ntimes", &recipe->times, 0 },
    };
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        BLADE_TRY(read_scalar(r, dims[i].name, KIND_INTEGER, dims[i].value));
        if (*dims[i].value < dims[i].minimum || *dims[i].value > (INT64_C(1) << 24))
            return dataset_error(r,
                                 BLADE_ERROR_FORMAT,
                                 dims[i].name,
                                 "value %lld is outside %lld .. %lld",
                                 (long long)*dims[i].value,
                                 (long long)dims[i].minimum,
                                 (long long)(INT64_C(1) << 24));
    }
    return BLADE_OK;
}

static blade_status
check_finite(const reader* r, const char* name, const double* values, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(values[i]))
            return dataset_error(
                r, BLADE_ERROR_FORMAT, name, "element %lld is not finite", (long long)i);
    return BLADE_OK;
}

static blade_status read_telinfo(const reader* r, blade_bfr5* recipe)
{
    const int64_t A = recipe->antennas;
    const int64_t positions[2] = { A, 3 };
    const int64_t antennas[1] = { A };
    BLADE_TRY(read_numeric(r,
                           "/telinfo/antenna_positions",
                           true,
                           KIND_REAL,
                           2,
                           positions,
                           "[nants, 3]",
                           (void**)&recipe->antenna_positions));
    BLADE_TRY(check_finite(r, "/telinfo/antenna_positions", recipe->antenna_positions, 3 * A));

    char* frame;
    BLADE_TRY(read_string(r, "/telinfo/antenna_position_frame", true, &frame));
    size_t length = strlen(frame);
    bool known = length < sizeof recipe->antenna_position_frame;
    for (size_t i = 0; known && i <= length; i++)
        recipe->antenna_position_frame[i] = (char)tolower((unsigned char)frame[i]);
    known = known && (strcmp(recipe->antenna_position_frame, "ecef") == 0 ||
                      strcmp(recipe->antenna_position_frame, "xyz") == 0 ||
                      strcmp(recipe->antenna_position_frame, "enu") == 0);
    if (!known) {
        const blade_status status = dataset_error(r,
                                                  BLADE_ERROR_FORMAT,
                                                  "/telinfo/antenna_position_frame",
                                                  "'%.40s' is not one of ecef, xyz, enu",
                                                  frame);
        free(frame);
        return status;
    }
    free(frame);

    double latitude, longitude;
    BLADE_TRY(read_scalar(r, "/telinfo/latitude", KIND_REAL, &latitude));
    BLADE_TRY(read_scalar(r, "/telinfo/longitude", KIND_REAL, &longitude));
    BLADE_TRY(read_scalar(r, "/telinfo/altitude", KIND_REAL, &recipe->altitude));
    if (!isfinite(latitude) || fabs(latitude) > 90.0)
        return dataset_error(r,
                             BLADE_ERROR_FORMAT,
                             "/telinfo/latitude",
                             "%g is not a latitude in degrees (-90 .. 90)",
                             latitude);
    if (!isfinite(longitude) || fabs(longitude) > 360.0)
        return dataset_error(r,
                             BLADE_ERROR_FORMAT,
                             "/telinfo/longitude",
                             "%g is not a longitude in degrees (-360 .. 360)",
                             longitude);
    if (!isfinite(recipe->altitude))
        return dataset_error(r, BLADE_ERROR_FORMAT, "/telinfo/altitude", "is not finite");
    recipe->latitude = latitude * BLADE_PI / 180.0;
    recipe->longitude = longitude * BLADE_PI / 180.0;

    /* Every frame to ECEF: xyz is ECEF axes from the reference position, enu is
     * local east/north/up from it. */
    BLADE_TRY(blade_alloc_object((size_t)(3 * A) * sizeof(double),
                                 "antenna positions",
                                 (void**)&recipe->antenna_positions_ecef));
    double reference[3];
    BLADE_TRY(
        blade_geodetic_to_ecef(recipe->longitude, recipe->latitude, recipe->altitude, reference));
    for (int64_t a = 0; a < A; a++) {
        const double* stored = recipe->antenna_positions + 3 * a;
        double* ecef = recipe->antenna_positions_ecef + 3 * a;
        double offset[3] = { stored[0], stored[1], stored[2] };
        if (strcmp(recipe->antenna_position_frame, "enu") == 0)
            blade_enu_to_ecef_offset(recipe->longitude, recipe->latitude, stored, offset);
        const bool absolute = strcmp(recipe->antenna_position_frame, "ecef") == 0;
        for (int i = 0; i < 3; i++)
            ecef[i] = absolute ? stored[i] : reference[i] + offset[i];
    }

    BLADE_TRY(read_strings(
        r, "/telinfo/antenna_names", false, 1, antennas, "[nants]", &recipe->antenna_names));
    BLADE_TRY(read_numeric(r,
                           "/telinfo/antenna_numbers",
                           false,
                           KIND_INTEGER,
                           1,
                           antennas,
                           "[nants]",
                           (void**)&recipe->antenna_numbers));
    BLADE_TRY(read_numeric(r,
                           "/telinfo/antenna_diameters",
                           false,
                           KIND_REAL,
                           1,
                           antennas,
                           "[nants]",
                           (void**)&recipe->antenna_diameters));
    BLADE_TRY(read_string(r, "/telinfo/telescope_name", false, &recipe->telescope_name));
    return BLADE_OK;
}

static blade_status read_obsinfo(const reader* r, blade_bfr5* recipe)
{
    BLADE_TRY(read_scalar(r, "/obsinfo/phase_center_ra", KIND_REAL, &recipe->phase_center_ra));
    BLADE_TRY(read_scalar(r, "/obsinfo/phase_center_dec", KIND_REAL, &recipe->phase_center_dec));
    if (!isfinite(recipe->phase_center_ra) || !isfinite(recipe->phase_center_dec) ||
        fabs(recipe->phase_center_dec) > BLADE_PI / 2 + 1e-12)
        return dataset_error(r,
                             BLADE_ERROR_FORMAT,
                             "/obsinfo/phase_center_dec",
                             "boresight (%g, %g) is not a direction in radians",
                             recipe->phase_center_ra,
                             recipe->phase_center_dec);
    BLADE_TRY(read_string(r, "/obsinfo/obsid", false, &recipe->obsid));
    BLADE_TRY(read_string(r, "/obsinfo/instrument_name", false, &recipe->instrument_name));
    const int64_t channels[1] = { recipe->channels };
    BLADE_TRY(read_numeric(r,
                           "/obsinfo/freq_array",
                           false,
                           KIND_REAL,
                           1,
                           channels,
                           "[nchan]",
                           (void**)&recipe->frequencies));
    if (recipe->frequencies != NULL)
        for (int64_t c = 0; c < recipe->channels; c++)
            recipe->frequencies[c] *= 1e9; /* GHz -> Hz */
    return BLADE_OK;
}

static blade_status read_calinfo(const reader* r, blade_bfr5* recipe)
{
    const int64_t F = recipe->channels, P = recipe->polarizations, A = recipe->antennas;
    const int64_t fpa[3] = { F, P, A };
    const int64_t pa[2] = { P, A };
    BLADE_TRY(read_numeric(r,
                           "/calinfo/cal_all",
                           true,
                           KIND_COMPLEX,
                           3,
                           fpa,
                           "[nchan, npol, nants]",
                           (void**)&recipe->cal_all));
    BLADE_TRY(read_string(r, "/calinfo/refant", false, &recipe->refant));
    BLADE_TRY(read_numeric(
        r, "/calinfo/cal_K", false, KIND_REAL, 2, pa, "[npol, nants]", (void**)&recipe->cal_k));
    BLADE_TRY(read_numeric(r,
                           "/calinfo/cal_B",
                           false,
                           KIND_COMPLEX,
                           3,
                           fpa,
                           "[nchan, npol, nants]",
                           (void**)&recipe->cal_b));
    BLADE_TRY(read_numeric(
        r, "/calinfo/cal_G", false, KIND_COMPLEX, 2, pa, "[npol, nants]", (void**)&recipe->cal_g));

    /* The phasor module's order: [A][F][P]. */
    BLADE_TRY(blade_alloc_object(
        (size_t)(2 * A * F * P) * sizeof(double), "calibration", (void**)&recipe->calibration));
    for (int64_t f = 0; f < F; f++)
        for (int64_t p = 0; p < P; p++)
            for (int64_t a = 0; a < A; a++) {
                const double* from = recipe->cal_all + 2 * ((f * P + p) * A + a);
                double* to = recipe->calibration + 2 * ((a * F + f) * P + p);
                to[0] = from[0];
                to[1] = from[1];
            }
    return BLADE_OK;
}

static blade_status read_beaminfo(const reader* r, blade_bfr5* recipe)
{
    const int64_t beams[1] = { recipe->beams };
    BLADE_TRY(read_numeric(
        r, "/beaminfo/ras", true, KIND_REAL, 1, beams, "[nbeams]", (void**)&recipe->beam_ras));
    BLADE_TRY(read_numeric(
        r, "/beaminfo/decs", true, KIND_REAL, 1, beams, "[nbeams]", (void**)&recipe->beam_decs));
    BLADE_TRY(check_finite(r, "/beaminfo/ras", recipe->beam_ras, recipe->beams));
    BLADE_TRY(check_finite(r, "/beaminfo/decs", recipe->beam_decs, recipe->beams));
    BLADE_TRY(
        read_strings(r, "/beaminfo/src_names", false, 1, beams, "[nbeams]", &recipe->source_names));
    return BLADE_OK;
}

static blade_status read_delayinfo(const reader* r, blade_bfr5* recipe)
{
    const int64_t T = recipe->times, B = recipe->beams, A = recipe->antennas;
    const int64_t tba[3] = { T, B, A };
    const int64_t t[1] = { T };
    BLADE_TRY(read_numeric(r,
                           "/delayinfo/delays",
                           false,
                           KIND_REAL,
                           3,
                           tba,
                           "[ntimes, nbeams, nants]",
                           (void**)&recipe->delays));
    BLADE_TRY(read_numeric(r,
                           "/delayinfo/rates",
                           false,
                           KIND_REAL,
                           3,
                           tba,
                           "[ntimes, nbeams, nants]",
                           (void**)&recipe->rates));
    BLADE_TRY(read_numeric(r,
                           "/delayinfo/time_array",
                           false,
                           KIND_REAL,
                           1,
                           t,
                           "[ntimes]",
                           (void**)&recipe->time_array));
    BLADE_TRY(read_numeric(
        r, "/delayinfo/jds", false, KIND_REAL, 1, t, "[ntimes]", (void**)&recipe->jds));

    hid_t dataset;
    BLADE_TRY(open_dataset(r, "/delayinfo/dut1", false, &dataset));
    if (dataset >= 0) {
        int rank;
        hsize_t dims[MAX_RANK];
        blade_status status = dataset_dims(r, "/delayinfo/dut1", dataset, &rank, dims);
        H5Dclose(dataset);
        BLADE_TRY(status);
        /* A single DUT1 (the usual case) or one per time. */
        const bool per_time = rank == 1 && dims[0] == (hsize_t)T && T != 1;
        recipe->dut1_count = per_time ? T : 1;
        BLADE_TRY(read_numeric(r,
                               "/delayinfo/dut1",
                               false,
                               KIND_REAL,
                               per_time ? 1 : 0,
                               t,
                               "(a scalar or [ntimes])",
                               (void**)&recipe->dut1));
    }

    /* Both tables were read with shape [T, B, A], so this product is bounded. */
    const int64_t count = recipe->delays || recipe->rates ? T * B * A : 0;
    if (recipe->delays != NULL) {
        BLADE_TRY(check_finite(r, "/delayinfo/delays", recipe->delays, count));
        BLADE_TRY(blade_alloc_object((size_t)(count > 0 ? count : 1) * sizeof(double),
                                     "delays",
                                     (void**)&recipe->delays_seconds));
        for (int64_t i = 0; i < count; i++)
            recipe->delays_seconds[i] = recipe->delays[i] * 1e-9;
    }
    if (recipe->rates != NULL) {
        BLADE_TRY(check_finite(r, "/delayinfo/rates", recipe->rates, count));
        BLADE_TRY(blade_alloc_object((size_t)(count > 0 ? count : 1) * sizeof(double),
                                     "delay rates",
                                     (void**)&recipe->rates_seconds));
        for (int64_t i = 0; i < count; i++)
            recipe->rates_seconds[i] = recipe->rates[i] * 1e-9;
    }
    return BLADE_OK;
}

/* ---- entry points ------------------------------------------------------------------- */

static blade_status read_all(const reader* r, blade_bfr5* recipe)
{
    BLADE_TRY(read_diminfo(r, recipe));
    BLADE_TRY(read_telinfo(r, recipe));
    BLADE_TRY(read_obsinfo(r, recipe));
    BLADE_TRY(read_calinfo(r, recipe));
    BLADE_TRY(read_beaminfo(r, recipe));
    BLADE_TRY(read_delayinfo(r, recipe));
    return BLADE_OK;
}

blade_status blade_bfr5_read(const char* path, blade_bfr5** result)
{
    *result = NULL;
    if (path == NULL || path[0] == '\0')
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "BFR5 recipe: no file name given");
    BLADE_TRY(blade_check_regular_file(path, "BFR5 recipe"));
    FILE* probe = fopen(path, "rb");
    if (probe == NULL)
        return blade_fail(BLADE_ERROR_IO, "BFR5 recipe %s: cannot open: %s", path, strerror(errno));
    fclose(probe);

    /* HDF5 prints its error stack by default; our messages replace it. */
    H5E_auto2_t previous_handler;
    void* previous_data;
    H5Eget_auto2(H5E_DEFAULT, &previous_handler, &previous_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    blade_bfr5* recipe = NULL;
    reader r = { path, -1 };
    blade_status status;
    if (H5Fis_hdf5(path) <= 0) {
        status = blade_fail(
            BLADE_ERROR_FORMAT, "BFR5 recipe %s: not an HDF5 file (or a truncated one)", path);
        goto done;
    }
    r.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r.file < 0) {
        status = blade_fail(BLADE_ERROR_FORMAT,
                            "BFR5 recipe %s: HDF5 cannot open it (truncated or corrupted?)",
                            path);
        goto done;
    }
    status = blade_alloc_object(sizeof *recipe, "BFR5 recipe", (void**)&recipe);
    if (status == BLADE_OK) {
        recipe->path = duplicate_trimmed(path, strlen(path));
        status = recipe->path != NULL ? read_all(&r, recipe)
                                      : blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "BFR5 recipe");
    }
done:
    if (r.file >= 0)
        H5Fclose(r.file);
    H5Eset_auto2(H5E_DEFAULT, previous_handler, previous_data);
    if (status != BLADE_OK) {
        blade_bfr5_free(recipe);
        return status;
    }
    *result = recipe;
    return BLADE_OK;
}

static void free_strings(char** strings, int64_t count)
{
    for (int64_t i = 0; strings != NULL && i < count; i++)
        free(strings[i]);
    free(strings);
}

/* A [times][beams][antennas] table with beams picked by `selection`. */
static blade_status select_table(double** table,
                                 int64_t times,
                                 int64_t beams,
                                 int64_t antennas,
                                 const int64_t* selection,
                                 int64_t count)
{
    if (*table == NULL)
        return BLADE_OK;
    double* picked = malloc((size_t)(times * count * antennas) * sizeof *picked);
    if (picked == NULL)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "BFR5: selecting beams of a delay table");
    for (int64_t t = 0; t < times; t++)
        for (int64_t b = 0; b < count; b++)
            memcpy(picked + (t * count + b) * antennas,
                   *table + (t * beams + selection[b]) * antennas,
                   (size_t)antennas * sizeof *picked);
    free(*table);
    *table = picked;
    return BLADE_OK;
}

blade_status blade_bfr5_select_beams(blade_bfr5* recipe, const int64_t* selection, int64_t count)
{
    if (count < 1)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT, "%s: an empty beam selection", recipe->path);
    for (int64_t b = 0; b < count; b++)
        if (selection[b] < 0 || selection[b] >= recipe->beams)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "%s: beam %lld selected, but /beaminfo has %lld beams (0 to %lld)",
                              recipe->path,
                              (long long)selection[b],
                              (long long)recipe->beams,
                              (long long)recipe->beams - 1);
    double* ras = malloc((size_t)count * sizeof *ras);
    double* decs = malloc((size_t)count * sizeof *decs);
    char** names = recipe->source_names ? calloc((size_t)count, sizeof *names) : NULL;
    if (ras == NULL || decs == NULL || (recipe->source_names && names == NULL)) {
        free(ras);
        free(decs);
        free(names);
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "BFR5: selecting beams");
    }
    for (int64_t b = 0; b < count; b++) {
        ras[b] = recipe->beam_ras[selection[b]];
        decs[b] = recipe->beam_decs[selection[b]];
        if (names) {
            const char* name = recipe->source_names[selection[b]];
            names[b] = name ? duplicate_trimmed(name, strlen(name)) : duplicate_trimmed("", 0);
            if (names[b] == NULL) {
                free(ras);
                free(decs);
                free_strings(names, b);
                return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "BFR5: selecting beams");
            }
        }
    }
    const int64_t times = recipe->times, beams = recipe->beams, antennas = recipe->antennas;
    BLADE_TRY(select_table(&recipe->delays, times, beams, antennas, selection, count));
    BLADE_TRY(select_table(&recipe->rates, times, beams, antennas, selection, count));
    BLADE_TRY(select_table(&recipe->delays_seconds, times, beams, antennas, selection, count));
    BLADE_TRY(select_table(&recipe->rates_seconds, times, beams, antennas, selection, count));
    free(recipe->beam_ras);
    free(recipe->beam_decs);
    free_strings(recipe->source_names, recipe->beams);
    recipe->beam_ras = ras;
    recipe->beam_decs = decs;
    recipe->source_names = names;
    recipe->beams = count;
    return BLADE_OK;
}

void blade_bfr5_free(blade_bfr5* recipe)
{
    if (recipe == NULL)
        return;
    free(recipe->path);
    free(recipe->antenna_positions);
    free(recipe->antenna_positions_ecef);
    free_strings(recipe->antenna_names, recipe->antennas);
    free(recipe->antenna_numbers);
    free(recipe->antenna_diameters);
    free(recipe->telescope_name);
    free(recipe->obsid);
    free(recipe->frequencies);
    free(recipe->instrument_name);
    free(recipe->cal_all);
    free(recipe->refant);
    free(recipe->cal_k);
    free(recipe->cal_b);
    free(recipe->cal_g);
    free(recipe->beam_ras);
    free(recipe->beam_decs);
    free_strings(recipe->source_names, recipe->beams);
    free(recipe->delays);
    free(recipe->rates);
    free(recipe->time_array);
    free(recipe->jds);
    free(recipe->dut1);
    free(recipe->calibration);
    free(recipe->delays_seconds);
    free(recipe->rates_seconds);
    free(recipe);
}

void blade_bfr5_conjugate_calibration(blade_bfr5* recipe)
{
    const int64_t F = recipe->channels, P = recipe->polarizations, A = recipe->antennas;
    double* tables[] = { recipe->cal_all, recipe->cal_b, recipe->calibration };
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (int64_t i = 0; tables[t] != NULL && i < F * P * A; i++)
            tables[t][2 * i + 1] = -tables[t][2 * i + 1];
    for (int64_t i = 0; recipe->cal_g != NULL && i < P * A; i++)
        recipe->cal_g[2 * i + 1] = -recipe->cal_g[2 * i + 1];
}

blade_status blade_bfr5_check_recording(const blade_bfr5* recipe,
                                        int64_t antennas,
                                        int64_t polarizations,
                                        const blade_observation* axis)
{
    const reader r = { recipe->path, -1 };
    if (antennas != recipe->antennas)
        return dataset_error(&r,
                             BLADE_ERROR_INVALID_ARGUMENT,
                             "/diminfo/nants",
                             "the recipe has %lld antennas but the recording %lld",
                             (long long)recipe->antennas,
                             (long long)antennas);
    if (polarizations != recipe->polarizations)
        return dataset_error(&r,
                             BLADE_ERROR_INVALID_ARGUMENT,
                             "/diminfo/npol",
                             "the recipe has %lld polarizations but the recording %lld",
                             (long long)recipe->polarizations,
                             (long long)polarizations);
    BLADE_TRY(blade_observation_check_axis(axis, "BFR5 recipe"));
    const int64_t first = axis->coarse_first;
    const int64_t last = blade_observation_coarse_channel(axis, axis->nchan - 1);
    if (last >= recipe->channels)
        return dataset_error(&r,
                             BLADE_ERROR_INVALID_ARGUMENT,
                             "/calinfo/cal_all",
                             "calibrates absolute channels 0 .. %lld (/diminfo/nchan %lld) but "
                             "the recording needs %lld .. %lld (its F-engine channels: SCHAN "
                             "and the channels chosen)",
                             (long long)(recipe->channels - 1),
                             (long long)recipe->channels,
                             (long long)first,
                             (long long)last);
    return BLADE_OK;
}

int64_t blade_bfr5_reference_antenna(const blade_bfr5* recipe)
{
    for (int64_t a = 0;
         recipe->refant != NULL && recipe->antenna_names != NULL && a < recipe->antennas;
         a++)
        if (recipe->antenna_names[a] != NULL &&
            strcmp(recipe->antenna_names[a], recipe->refant) == 0)
            return a;
    return 0;
}

blade_status blade_bfr5_phasor_config(const blade_bfr5* recipe,
                                      const blade_observation* axis,
                                      int64_t antennas,
                                      int64_t polarizations,
                                      int64_t reference_antenna,
                                      blade_delay_mode mode,
                                      blade_phasor_config* config)
{
    BLADE_TRY(blade_bfr5_check_recording(recipe, antennas, polarizations, axis));
    const reader r = { recipe->path, -1 };
    memset(config, 0, sizeof *config);
    config->longitude = recipe->longitude;
    config->latitude = recipe->latitude;
    config->altitude = recipe->altitude;
    config->antennas = recipe->antennas;
    config->antenna_positions = recipe->antenna_positions_ecef;
    config->reference_antenna =
        reference_antenna >= 0 ? reference_antenna : blade_bfr5_reference_antenna(recipe);
    config->boresight_ra = recipe->phase_center_ra;
    config->boresight_dec = recipe->phase_center_dec;
    config->beams = recipe->beams;
    config->beam_ra = recipe->beam_ras;
    config->beam_dec = recipe->beam_decs;
    config->observation = *axis;
    config->polarizations = recipe->polarizations;
    config->calibration = recipe->calibration;
    config->calibration_channels = recipe->channels;
    config->calibration_first_channel = 0;
    config->delay_mode = mode;
    if (mode != BLADE_DELAYS_GEOMETRY) {
        if (recipe->delays_seconds == NULL || recipe->time_array == NULL || recipe->times < 1)
            return dataset_error(&r,
                                 BLADE_ERROR_INVALID_ARGUMENT,
                                 "/delayinfo/delays",
                                 "recipe delays were asked for but the recipe has no "
                                 "/delayinfo/delays and /delayinfo/time_array");
        if (mode == BLADE_DELAYS_TABLE_RATES && recipe->rates_seconds == NULL)
            return dataset_error(&r,
                                 BLADE_ERROR_INVALID_ARGUMENT,
                                 "/delayinfo/rates",
                                 "delay rates were asked for but the recipe has none");
        config->table.times = recipe->times;
        config->table.unix_times = recipe->time_array;
        config->table.delays = recipe->delays_seconds;
        config->table.rates = mode == BLADE_DELAYS_TABLE_RATES ? recipe->rates_seconds : NULL;
    }
    return BLADE_OK;
}
