/* SPDX-License-Identifier: MIT */
/*
 * BFR5 recipes (lib/core/bfr5.c), fuzzed through their structure rather than their
 * bytes.
 *
 * HDF5 parses the file; our code decides what to do with each dataset it finds.
 * Mutating HDF5's bytes would spend nearly every execution inside libhdf5's own
 * parser (slow, and with known crashes of its own that we cannot fix), so this
 * target builds a valid HDF5 file for every input instead, whose *contents* the
 * input chooses: for every dataset the reader knows, whether it exists, what it
 * is (dataset, group, dangling or external link), its type (integer widths,
 * float32/64, strings fixed or variable, compounds with and without members r and
 * i, enums, arrays, opaque), its shape (right, scalar, one too long, one rank too
 * many or few, (1,), empty, null dataspace, chunked without data) and its values
 * (NaN, infinities, huge, negative, out of range angles, the frame string), plus
 * the /diminfo sizes themselves (0, 1, 2^24, 2^24 + 1, INT64_MAX, ...). The
 * empty input is the recipe blade.write_bfr5 writes for 3 antennas, 2
 * polarizations, 4 channels, 2 beams and 2 delay times.
 *
 * Properties checked:
 * - every recipe is refused with a message naming the file, or read with its
 *   sizes, units (radians, Hz) and finite values as the format says;
 * - no HDF5 identifier (file, dataset, group, type, space) is left open on any
 *   path, success or failure;
 * - an accepted recipe survives beam selection, the recording check and the
 *   phasor configuration it feeds (blade_phasor_create on the CPU).
 */
#include "fuzz_support.h"

#include <hdf5.h>
#include <math.h>

/* ---- the recipe's datasets ------------------------------------------------------ */

typedef enum kind { INTEGER, REAL, COMPLEX, STRING } kind;
/* Symbolic extents: resolved from the /diminfo values chosen. */
typedef enum extent { X_A, X_P, X_F, X_B, X_T, X_3 } extent;

typedef struct dataset_spec {
    const char* path;
    kind kind;
    int rank;
    extent dims[3];
} dataset_spec;

static const dataset_spec specs[] = {
    { "/diminfo/nants", INTEGER, 0, { 0 } },
    { "/diminfo/npol", INTEGER, 0, { 0 } },
    { "/diminfo/nchan", INTEGER, 0, { 0 } },
    { "/diminfo/nbeams", INTEGER, 0, { 0 } },
    { "/diminfo/ntimes", INTEGER, 0, { 0 } },
    { "/telinfo/antenna_positions", REAL, 2, { X_A, X_3 } },
    { "/telinfo/antenna_position_frame", STRING, 0, { 0 } },
    { "/telinfo/latitude", REAL, 0, { 0 } },
    { "/telinfo/longitude", REAL, 0, { 0 } },
    { "/telinfo/altitude", REAL, 0, { 0 } },
    { "/telinfo/antenna_names", STRING, 1, { X_A } },
    { "/telinfo/antenna_numbers", INTEGER, 1, { X_A } },
    { "/telinfo/antenna_diameters", REAL, 1, { X_A } },
    { "/telinfo/telescope_name", STRING, 0, { 0 } },
    { "/obsinfo/phase_center_ra", REAL, 0, { 0 } },
    { "/obsinfo/phase_center_dec", REAL, 0, { 0 } },
    { "/obsinfo/obsid", STRING, 0, { 0 } },
    { "/obsinfo/instrument_name", STRING, 0, { 0 } },
    { "/obsinfo/freq_array", REAL, 1, { X_F } },
    { "/calinfo/cal_all", COMPLEX, 3, { X_F, X_P, X_A } },
    { "/calinfo/refant", STRING, 0, { 0 } },
    { "/calinfo/cal_K", REAL, 2, { X_P, X_A } },
    { "/calinfo/cal_B", COMPLEX, 3, { X_F, X_P, X_A } },
    { "/calinfo/cal_G", COMPLEX, 2, { X_P, X_A } },
    { "/beaminfo/ras", REAL, 1, { X_B } },
    { "/beaminfo/decs", REAL, 1, { X_B } },
    { "/beaminfo/src_names", STRING, 1, { X_B } },
    { "/delayinfo/delays", REAL, 3, { X_T, X_B, X_A } },
    { "/delayinfo/rates", REAL, 3, { X_T, X_B, X_A } },
    { "/delayinfo/time_array", REAL, 1, { X_T } },
    { "/delayinfo/jds", REAL, 1, { X_T } },
    { "/delayinfo/dut1", REAL, 0, { 0 } },
};
#define SPEC_COUNT (sizeof specs / sizeof *specs)

static const char* const groups[] = { "/diminfo", "/telinfo",  "/obsinfo",
                                      "/calinfo", "/beaminfo", "/delayinfo" };

/* /diminfo values to choose from (index 0: the default of each). */
static const int64_t size_choices[] = { 0,
                                        1,
                                        2,
                                        5,
                                        0,
                                        -1,
                                        INT64_C(1) << 24,
                                        (INT64_C(1) << 24) + 1,
                                        INT64_MAX,
                                        INT64_MIN,
                                        7,
                                        INT64_C(1) << 16,
                                        INT64_C(1) << 20,
                                        64 };
static const int64_t default_sizes[5] = { 3, 2, 4, 2, 2 }; /* A P F B T */

/* Datasets larger than this are written without data (chunked, fill values), and
 * only with shapes the reader must refuse before reading them. */
#define SMALL_ELEMENTS (INT64_C(1) << 16)
/* The reader's own limit (lib/core/bfr5.c): larger datasets are refused unread. */
#define READER_LIMIT_BYTES (INT64_C(1) << 30)

enum shape_variant {
    SHAPE_RIGHT = 0,
    SHAPE_SCALAR,
    SHAPE_LONGER,
    SHAPE_RANK_UP,
    SHAPE_RANK_DOWN,
    SHAPE_ONE,
    SHAPE_EMPTY,
    SHAPE_NULL,
    SHAPE_SPARSE,
    SHAPE_COUNT
};
enum node_variant {
    NODE_DATASET = 0,
    NODE_ABSENT,
    NODE_GROUP,
    NODE_DANGLING,
    NODE_EXTERNAL,
    NODE_COUNT
};
enum type_variant {
    TYPE_CANONICAL = 0,
    TYPE_NARROW,
    TYPE_WRONG_KIND,
    TYPE_COMPOUND_MISSING,
    TYPE_COMPOUND_INTEGERS,
    TYPE_ENUM,
    TYPE_ARRAY,
    TYPE_OPAQUE,
    TYPE_UNSIGNED,
    TYPE_UTF8,
    TYPE_COUNT
};
enum value_variant {
    VALUE_NORMAL = 0,
    VALUE_NAN,
    VALUE_INFINITE,
    VALUE_HUGE,
    VALUE_NEGATIVE,
    VALUE_ZERO,
    VALUE_EDGE,
    VALUE_RAW,
    VALUE_COUNT
};

typedef struct choice {
    unsigned node, type, shape, value;
} choice;

/* ---- values --------------------------------------------------------------------- */

static const char* const frame_choices[] = {
    "ecef",    "xyz", "enu",
    "ENU",     "",    "ecefx",
    "ecef   ", "e",   "a frame name far longer than any real one"
};

/* A sensible value of element `i` of dataset `spec` (degrees, radians, GHz, ns). */
static double normal_value(const dataset_spec* spec, int64_t i)
{
    const char* name = strrchr(spec->path, '/') + 1;
    if (strcmp(name, "latitude") == 0)
        return -30.7;
    if (strcmp(name, "longitude") == 0)
        return 21.4;
    if (strcmp(name, "altitude") == 0)
        return 1038.0;
    if (strcmp(name, "phase_center_ra") == 0)
        return 1.0;
    if (strcmp(name, "phase_center_dec") == 0)
        return -0.5;
    if (strcmp(name, "ras") == 0)
        return 1.0 + 0.01 * (double)i;
    if (strcmp(name, "decs") == 0)
        return -0.5 + 0.01 * (double)i;
    if (strcmp(name, "freq_array") == 0)
        return 1.0 + 0.001 * (double)i;
    if (strcmp(name, "time_array") == 0)
        return 1.7e9 + 60.0 * (double)i;
    if (strcmp(name, "jds") == 0)
        return 2460000.5 + (double)i / 1440.0;
    if (strcmp(name, "antenna_positions") == 0)
        return (i % 3 == 0 ? 5109000.0 : i % 3 == 1 ? 2006000.0 : -3239000.0) + 10.0 * (double)i;
    return 0.25 * (double)(i % 17) - 1.0;
}

static double edge_value(const dataset_spec* spec)
{
    const char* name = strrchr(spec->path, '/') + 1;
    if (strcmp(name, "latitude") == 0)
        return 90.000001;
    if (strcmp(name, "longitude") == 0)
        return -360.0;
    if (strcmp(name, "phase_center_dec") == 0)
        return M_PI / 2 + 1e-9;
    return -0.0;
}

/* ---- writing -------------------------------------------------------------------- */

static hid_t complex_type(hid_t member, bool with_i, bool swapped)
{
    const size_t size = H5Tget_size(member);
    const hid_t type = H5Tcreate(H5T_COMPOUND, 2 * size);
    H5Tinsert(type, swapped ? "i" : "r", 0, member);
    H5Tinsert(type, swapped ? "r" : (with_i ? "i" : "x"), size, member);
    return type;
}

/* The file type of a dataset; *memory the matching type to write values with. */
static hid_t file_type(const dataset_spec* spec, unsigned variant, kind* written)
{
    kind k = spec->kind;
    if (variant == TYPE_WRONG_KIND)
        k = k == STRING ? REAL : k == INTEGER ? REAL : STRING;
    *written = k;
    switch (variant) {
    case TYPE_ENUM: {
        const hid_t type = H5Tenum_create(H5T_NATIVE_INT);
        int value = 0;
        H5Tenum_insert(type, "ZERO", &value);
        value = 1;
        H5Tenum_insert(type, "ONE", &value);
        *written = INTEGER;
        return type;
    }
    case TYPE_ARRAY: {
        const hsize_t two = 2;
        *written = REAL;
        return H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &two);
    }
    case TYPE_OPAQUE: {
        const hid_t type = H5Tcreate(H5T_OPAQUE, 8);
        H5Tset_tag(type, "fuzz");
        *written = INTEGER;
        return type;
    }
    default:
        break;
    }
    switch (k) {
    case INTEGER:
        return H5Tcopy(variant == TYPE_NARROW     ? H5T_STD_I8BE
                       : variant == TYPE_UNSIGNED ? H5T_STD_U64LE
                                                  : H5T_STD_I64LE);
    case REAL:
        return H5Tcopy(variant == TYPE_NARROW     ? H5T_IEEE_F32BE
                       : variant == TYPE_UNSIGNED ? H5T_STD_U16LE
                                                  : H5T_IEEE_F64LE);
    case COMPLEX:
        *written = COMPLEX;
        if (variant == TYPE_COMPOUND_INTEGERS)
            return complex_type(H5T_STD_I32LE, true, false);
        if (variant == TYPE_COMPOUND_MISSING)
            return complex_type(H5T_IEEE_F64LE, false, false);
        return complex_type(
            variant == TYPE_NARROW ? H5T_IEEE_F32BE : H5T_IEEE_F64LE, true, variant == TYPE_NARROW);
    case STRING: {
        const hid_t type = H5Tcopy(H5T_C_S1);
        /* Canonical: variable length, as h5py writes str; narrow: fixed width. */
        H5Tset_size(type, variant == TYPE_NARROW ? 12 : H5T_VARIABLE);
        if (variant == TYPE_UTF8)
            H5Tset_cset(type, H5T_CSET_UTF8);
        if (variant == TYPE_NARROW)
            H5Tset_strpad(type, H5T_STR_NULLPAD);
        return type;
    }
    }
    return H5Tcopy(H5T_NATIVE_DOUBLE);
}

/* Element values of a dataset of `count` elements written as `written`. */
static void* make_values(const dataset_spec* spec,
                         kind written,
                         hid_t type,
                         const choice* c,
                         int64_t count,
                         const int64_t* sizes,
                         int64_t spec_index,
                         fuzz_bytes* b,
                         hid_t* memory)
{
    const H5T_class_t class = H5Tget_class(type);
    if (class == H5T_ENUM || class == H5T_OPAQUE || class == H5T_ARRAY ||
        (written == COMPLEX && H5Tget_member_class(type, 0) == H5T_INTEGER)) {
        *memory = H5Tcopy(type);
        const size_t bytes = H5Tget_size(type) * (size_t)(count > 0 ? count : 1);
        uint8_t* raw = calloc(1, bytes);
        for (size_t i = 0; i < bytes && i < 64; i++)
            raw[i] = fuzz_u8(b);
        if (class == H5T_ARRAY || class == H5T_ENUM)
            memset(raw, 0, bytes); /* valid doubles / enum members */
        return raw;
    }
    if (written == STRING) {
        *memory = H5Tcopy(type);
        const bool variable = H5Tis_variable_str(type) > 0;
        const size_t width = variable ? sizeof(char*) : H5Tget_size(type);
        const size_t n = (size_t)(count > 0 ? count : 1);
        /* The elements, then the generated texts they are made from. */
        char* raw = calloc(n, width + 32);
        for (int64_t i = 0; i < count; i++) {
            const char* text;
            char* generated = raw + n * width + (size_t)i * 32;
            if (spec_index == 6) { /* the antenna frame */
                text = frame_choices[c->value % (sizeof frame_choices / sizeof *frame_choices)];
            } else if (c->value == VALUE_ZERO) {
                text = "";
            } else {
                snprintf(generated,
                         32,
                         "%s%lld",
                         c->value == VALUE_RAW ? "\xc3\xa9t\xc3\xa9 " : "name ",
                         (long long)i);
                text = generated;
            }
            if (variable)
                ((const char**)raw)[i] = text;
            else
                strncpy(raw + (size_t)i * width, text, width);
        }
        return raw;
    }
    const int64_t values = written == COMPLEX ? 2 * count : count;
    if (written == INTEGER) {
        *memory = H5Tcopy(H5T_NATIVE_INT64);
        int64_t* out = calloc((size_t)(values > 0 ? values : 1), sizeof *out);
        for (int64_t i = 0; i < values; i++) {
            if (spec_index < 5) /* a /diminfo size */
                out[i] = sizes[spec_index];
            else
                out[i] = c->value == VALUE_HUGE       ? INT64_MAX
                         : c->value == VALUE_NEGATIVE ? -1
                         : c->value == VALUE_RAW      ? (int64_t)fuzz_u64(b)
                                                      : 10 + i;
        }
        return out;
    }
    *memory = written == COMPLEX ? complex_type(H5T_NATIVE_DOUBLE, true, false)
                                 : H5Tcopy(H5T_NATIVE_DOUBLE);
    double* out = calloc((size_t)(values > 0 ? values : 1), sizeof *out);
    for (int64_t i = 0; i < values; i++) {
        double v = normal_value(spec, written == COMPLEX ? i / 2 : i);
        if (written == COMPLEX)
            v = i % 2 == 0 ? 1.0 - 0.1 * (double)(i / 2 % 5) : 0.05 * (double)(i / 2 % 7);
        const bool last = i == values - 1; /* damage one element, the last */
        switch (c->value) {
        case VALUE_NAN:
            v = last ? NAN : v;
            break;
        case VALUE_INFINITE:
            v = last ? -INFINITY : v;
            break;
        case VALUE_HUGE:
            v = 1e300;
            break;
        case VALUE_NEGATIVE:
            v = -fabs(v) - 1e10;
            break;
        case VALUE_ZERO:
            v = 0.0;
            break;
        case VALUE_EDGE:
            v = edge_value(spec);
            break;
        case VALUE_RAW:
            v = i < 4 ? fuzz_double(b) : v;
            break;
        default:
            break;
        }
        out[i] = v;
    }
    return out;
}

static int64_t resolve(extent x, const int64_t* sizes) { return x == X_3 ? 3 : sizes[x]; }

/* Elements of the canonical shape, saturating (sizes may be negative or huge). */
static int64_t canonical_count(const dataset_spec* spec, const int64_t* sizes, bool* valid)
{
    int64_t count = 1;
    *valid = true;
    for (int i = 0; i < spec->rank; i++) {
        const int64_t n = resolve(spec->dims[i], sizes);
        if (n < 0) {
            *valid = false;
            return 0;
        }
        if (n != 0 && count > INT64_MAX / n)
            count = INT64_MAX;
        else
            count *= n;
    }
    return count;
}

static void write_dataset(hid_t file,
                          const dataset_spec* spec,
                          int64_t index,
                          const choice* c,
                          const int64_t* sizes,
                          fuzz_bytes* b)
{
    switch (c->node) {
    case NODE_ABSENT:
        return;
    case NODE_GROUP:
        H5Gclose(H5Gcreate2(file, spec->path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        return;
    case NODE_DANGLING:
        H5Lcreate_soft("/nowhere/at/all", file, spec->path, H5P_DEFAULT, H5P_DEFAULT);
        return;
    case NODE_EXTERNAL:
        H5Lcreate_external(
            "/nonexistent/other.h5", "/data", file, spec->path, H5P_DEFAULT, H5P_DEFAULT);
        return;
    default:
        break;
    }
    kind written;
    const hid_t type = file_type(spec, c->type, &written);

    bool valid;
    int64_t count = canonical_count(spec, sizes, &valid);
    hsize_t dims[4] = { 1, 1, 1, 1 };
    int rank = spec->rank;
    for (int i = 0; i < rank; i++)
        dims[i] = valid ? (hsize_t)resolve(spec->dims[i], sizes) : 1;
    unsigned shape = c->shape;
    /* Sizes the /diminfo choice makes impossible to write (negative extents):
     * write a shape the reader must refuse anyway. */
    if (!valid)
        shape = SHAPE_LONGER;
    switch (shape) {
    case SHAPE_SCALAR:
        rank = 0;
        break;
    case SHAPE_LONGER:
        if (rank == 0) {
            rank = 1;
            dims[0] = 2;
        } else {
            dims[0] += 1;
        }
        break;
    case SHAPE_RANK_UP:
        dims[rank++] = 1;
        break;
    case SHAPE_RANK_DOWN:
        rank = rank > 0 ? rank - 1 : 1;
        break;
    case SHAPE_ONE:
        rank = 1;
        dims[0] = 1;
        break;
    case SHAPE_EMPTY:
        if (rank == 0)
            rank = 1;
        dims[0] = 0;
        break;
    default:
        break;
    }
    count = 1;
    bool overflow = false;
    for (int i = 0; i < rank; i++) {
        if (dims[i] != 0 && (uint64_t)count > (uint64_t)INT64_MAX / dims[i])
            overflow = true;
        else
            count *= (int64_t)dims[i];
    }
    const int64_t element_bytes = written == COMPLEX ? 16 : 8;
    const bool big = overflow || count > SMALL_ELEMENTS;
    /* A big dataset is written without data; it must either have a shape the
     * reader refuses, or be beyond the reader's size limit (refused unread). A
     * big dataset the reader would have to read in full is made the wrong shape:
     * reading gigabytes of fill values tests nothing. */
    if (big && shape == SHAPE_RIGHT && !overflow && count <= READER_LIMIT_BYTES / element_bytes) {
        rank = rank > 0 ? rank : 1;
        dims[rank - 1] += 1;
    }
    const hid_t space = shape == SHAPE_NULL ? H5Screate(H5S_NULL)
                        : rank == 0         ? H5Screate(H5S_SCALAR)
                                            : H5Screate_simple(rank, dims, NULL);
    const hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    const bool sparse = big || shape == SHAPE_SPARSE;
    if (sparse && rank > 0 && shape != SHAPE_NULL) {
        hsize_t chunk[4];
        for (int i = 0; i < rank; i++)
            chunk[i] = dims[i] == 0 ? 1 : (dims[i] < 64 ? dims[i] : 64);
        H5Pset_chunk(properties, rank, chunk);
    }
    const hid_t dataset =
        H5Dcreate2(file, spec->path, type, space, H5P_DEFAULT, properties, H5P_DEFAULT);
    if (dataset >= 0 && !sparse && shape != SHAPE_NULL) {
        hid_t memory = -1;
        void* values =
            make_values(spec, written, type, c, rank == 0 ? 1 : count, sizes, index, b, &memory);
        /* HDF5's default 1 MiB conversion buffer, calloc'ed per write, was most
         * of the time of an execution. */
        const hid_t transfer = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_buffer(transfer, 4096 + 64 * (size_t)H5Tget_size(type), NULL, NULL);
        H5Dwrite(dataset, memory, H5S_ALL, H5S_ALL, transfer, values);
        H5Pclose(transfer);
        H5Tclose(memory);
        free(values);
    }
    if (dataset >= 0)
        H5Dclose(dataset);
    H5Pclose(properties);
    H5Sclose(space);
    H5Tclose(type);
}

/* ---- HDF5 identifiers left open ------------------------------------------------- */

typedef struct id_counts {
    ssize_t files, groups, datasets, types, spaces, attributes, properties;
} id_counts;

static id_counts open_ids(void)
{
    id_counts n;
    hsize_t value;
    n.files = H5Inmembers(H5I_FILE, &value) >= 0 ? (ssize_t)value : -1;
    n.groups = H5Inmembers(H5I_GROUP, &value) >= 0 ? (ssize_t)value : -1;
    n.datasets = H5Inmembers(H5I_DATASET, &value) >= 0 ? (ssize_t)value : -1;
    n.types = H5Inmembers(H5I_DATATYPE, &value) >= 0 ? (ssize_t)value : -1;
    n.spaces = H5Inmembers(H5I_DATASPACE, &value) >= 0 ? (ssize_t)value : -1;
    n.attributes = H5Inmembers(H5I_ATTR, &value) >= 0 ? (ssize_t)value : -1;
    n.properties = H5Inmembers(H5I_GENPROP_LST, &value) >= 0 ? (ssize_t)value : -1;
    return n;
}

/* ---- after a successful read ----------------------------------------------------- */

/* `sizes[i]` < -1: that /diminfo value was stored in a way that may change it
 * (narrow or unsigned type, fill value), so it is not compared. */
static void check_recipe(const blade_bfr5* r, const int64_t* sizes, const char* path)
{
    FUZZ_REQUIRE(r->path != NULL && strcmp(r->path, path) == 0, "path");
    const int64_t found[5] = { r->antennas, r->polarizations, r->channels, r->beams, r->times };
    for (int i = 0; i < 5; i++)
        FUZZ_REQUIRE(sizes[i] < -1 || found[i] == sizes[i],
                     "%s: %lld read, %lld written",
                     specs[i].path,
                     (long long)found[i],
                     (long long)sizes[i]);
    FUZZ_REQUIRE(r->antennas >= 1 && r->polarizations >= 1 && r->channels >= 1 && r->beams >= 1 &&
                     r->times >= 0,
                 "accepted sizes must be usable");
    FUZZ_REQUIRE(strcmp(r->antenna_position_frame, "ecef") == 0 ||
                     strcmp(r->antenna_position_frame, "xyz") == 0 ||
                     strcmp(r->antenna_position_frame, "enu") == 0,
                 "frame '%s'",
                 r->antenna_position_frame);
    FUZZ_REQUIRE(fabs(r->latitude) <= M_PI / 2 + 1e-12 && fabs(r->longitude) <= 2 * M_PI + 1e-12 &&
                     isfinite(r->altitude),
                 "array at %g, %g, %g",
                 r->latitude,
                 r->longitude,
                 r->altitude);
    FUZZ_REQUIRE(isfinite(r->phase_center_ra) && fabs(r->phase_center_dec) <= M_PI / 2 + 1e-9,
                 "boresight %g %g",
                 r->phase_center_ra,
                 r->phase_center_dec);
    for (int64_t i = 0; i < 3 * r->antennas; i++)
        FUZZ_REQUIRE(isfinite(r->antenna_positions_ecef[i]), "ECEF position %lld", (long long)i);
    for (int64_t i = 0; i < r->beams; i++)
        FUZZ_REQUIRE(
            isfinite(r->beam_ras[i]) && isfinite(r->beam_decs[i]), "beam %lld", (long long)i);
    FUZZ_REQUIRE(r->cal_all != NULL && r->calibration != NULL, "calibration");
    for (int64_t i = 0; i < r->antennas && r->antenna_names; i++)
        FUZZ_REQUIRE(r->antenna_names[i] != NULL, "antenna name %lld", (long long)i);
    for (int64_t i = 0; i < r->beams && r->source_names; i++)
        FUZZ_REQUIRE(r->source_names[i] != NULL, "source name %lld", (long long)i);
    if (r->delays != NULL)
        FUZZ_REQUIRE(r->delays_seconds != NULL, "delays in seconds");
    if (r->dut1 != NULL)
        FUZZ_REQUIRE(r->dut1_count == 1 || r->dut1_count == r->times,
                     "%lld DUT1 values",
                     (long long)r->dut1_count);
}

static void use_recipe(blade_bfr5* r, fuzz_bytes* b)
{
    /* The recording it is checked against: mostly the recipe's own sizes. */
    blade_observation recording, chunks;
    memset(&recording, 0, sizeof recording);
    recording.chan_bw = fuzz_choice(b, 2) ? -250e3 : 250e3;
    recording.freq_first = 1.4e9 - 0.5 * (double)(r->channels - 1) * recording.chan_bw;
    recording.nchan = r->channels;
    recording.nfpc = 1;
    recording.coarse_first = fuzz_choice(b, 3);
    if (blade_observation_select_channels(
            &recording, fuzz_choice(b, 3), 1 + fuzz_choice(b, 2), &chunks) != BLADE_OK)
        chunks = recording; /* more channels asked than the recipe has: all of them */
    const blade_observation axis = blade_observation_channelized(&chunks, 1 + fuzz_choice(b, 2));
    const int64_t antennas = r->antennas + (fuzz_choice(b, 8) == 7 ? 1 : 0);
    const int64_t polarizations = r->polarizations;
    blade_status status = blade_bfr5_check_recording(r, antennas, polarizations, &axis);
    FUZZ_REQUIRE_MESSAGE(status);
    const blade_delay_mode mode = (blade_delay_mode)fuzz_choice(b, 3);
    blade_phasor_config config;
    status = blade_bfr5_phasor_config(
        r, &axis, antennas, polarizations, fuzz_choice(b, 4), mode, &config);
    FUZZ_REQUIRE_MESSAGE(status);
    /* Plans of a sensible size only: the phasor module has its own tests. */
    if (status == BLADE_OK && r->antennas * r->beams * r->polarizations <= 4096) {
        blade_phasor* plan = NULL;
        status = blade_phasor_create(&plan, &config, blade_device_cpu());
        FUZZ_REQUIRE_MESSAGE(status);
        blade_phasor_destroy(plan);
    }

    /* The default choices (0, when the bytes have run out) select beam 0 once. */
    int64_t selection[4];
    const int64_t count = (fuzz_choice(b, 5) + 1) % 5; /* 1, 2, 3, 4, then 0 */
    for (int64_t i = 0; i < count; i++) {
        const int64_t picks[5] = { 0, 1, r->beams - 1, -1, r->beams };
        selection[i] = picks[fuzz_choice(b, 5)];
    }
    const int64_t beams_before = r->beams;
    status = blade_bfr5_select_beams(r, selection, count);
    FUZZ_REQUIRE_MESSAGE(status);
    FUZZ_REQUIRE(status != BLADE_OK || r->beams == count,
                 "beams %lld after selecting %lld",
                 (long long)r->beams,
                 (long long)count);
    FUZZ_REQUIRE(status == BLADE_OK || r->beams == beams_before,
                 "a refused selection changed "
                 "the recipe");
    for (int64_t i = 0; i < r->beams && r->source_names; i++)
        FUZZ_REQUIRE(r->source_names[i] != NULL, "source name %lld after selection", (long long)i);
}

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    (void)argc, (void)argv;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our checks say what failed */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_bytes b = { data, size, 0 };
    int64_t sizes[5];
    for (int i = 0; i < 5; i++) {
        const unsigned pick = fuzz_choice(&b, sizeof size_choices / sizeof *size_choices);
        sizes[i] = pick == 0 ? default_sizes[i] : size_choices[pick];
    }
    choice choices[SPEC_COUNT];
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        /* One byte per dataset picks the kind of damage, 0 (none) the most likely
         * when bytes run out; a second picks the variant within it. */
        const uint8_t what = fuzz_u8(&b);
        const uint8_t which = fuzz_u8(&b);
        choice c = { NODE_DATASET, TYPE_CANONICAL, SHAPE_RIGHT, VALUE_NORMAL };
        switch (what % 5) {
        case 1:
            c.node = which % NODE_COUNT;
            break;
        case 2:
            c.type = which % TYPE_COUNT;
            break;
        case 3:
            c.shape = which % SHAPE_COUNT;
            break;
        case 4:
            c.value = which % VALUE_COUNT;
            break;
        default:
            c.value = specs[i].kind == STRING ? which % VALUE_COUNT : VALUE_NORMAL;
            break;
        }
        /* The frame string's value byte picks the frame, default "ecef". */
        if (i == 6 && what % 5 != 4)
            c.value = 0;
        choices[i] = c;
    }

    char path[600];
    snprintf(path, sizeof path, "%s/recipe.bfr5", fuzz_scratch());
    /* Built in memory and written once at close: several times faster. */
    const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(access, 1 << 16, 1);
    const hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, access);
    H5Pclose(access);
    FUZZ_REQUIRE(file >= 0, "cannot create %s", path);
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
        H5Gclose(H5Gcreate2(file, groups[g], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (size_t i = 0; i < SPEC_COUNT; i++)
        write_dataset(file, &specs[i], (int64_t)i, &choices[i], sizes, &b);
    H5Fclose(file);

    const id_counts before = open_ids();
    blade_bfr5* recipe = NULL;
    blade_clear_error();
    const blade_status status = blade_bfr5_read(path, &recipe);
    FUZZ_REQUIRE_MESSAGE(status);
    const id_counts after = open_ids();
    FUZZ_REQUIRE(memcmp(&before, &after, sizeof before) == 0,
                 "HDF5 identifiers left open: files %zd->%zd groups %zd->%zd datasets "
                 "%zd->%zd types %zd->%zd spaces %zd->%zd attributes %zd->%zd property "
                 "lists %zd->%zd",
                 before.files,
                 after.files,
                 before.groups,
                 after.groups,
                 before.datasets,
                 after.datasets,
                 before.types,
                 after.types,
                 before.spaces,
                 after.spaces,
                 before.attributes,
                 after.attributes,
                 before.properties,
                 after.properties);
    if (status != BLADE_OK) {
        FUZZ_REQUIRE(recipe == NULL, "a refused recipe was returned");
        FUZZ_REQUIRE(strstr(blade_last_error(), path) != NULL ||
                         status == BLADE_ERROR_OUT_OF_MEMORY,
                     "the message does not name the file: %s",
                     blade_last_error());
        return 0;
    }
    int64_t stored[5];
    for (int i = 0; i < 5; i++) {
        const choice* c = &choices[i];
        const bool exact =
            c->node == NODE_DATASET && c->type == TYPE_CANONICAL &&
            (c->shape == SHAPE_RIGHT || c->shape == SHAPE_SCALAR || c->shape == SHAPE_ONE);
        stored[i] = exact ? sizes[i] : -2;
    }
    check_recipe(recipe, stored, path);
    use_recipe(recipe, &b);
    blade_bfr5_free(recipe);
    return 0;
}
