/* SPDX-License-Identifier: MIT */
/*
 * Filterbank HDF5 (FBH5): root attributes CLASS = "FILTERBANK", VERSION = "1.0";
 * dataset "data", float32 (n_spectra, nifs, nchans), chunked and unlimited along
 * time, with dimension labels time, feed_id, frequency (sigpyproc reads them) and
 * the SIGPROC header values as its attributes (blimpy reads them).
 *
 * The dataset grows by each append and the file is flushed after it: an
 * interrupted recording is complete up to the last append. (SWMR would protect
 * the file during an append too, but a crashed SWMR file cannot be opened until
 * h5clear is run on it, which is worse for users.) Bitshuffle compression is not
 * applied: the filter is a plugin that readers would need too.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "file_guard.h"
#include "filterbank_backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifdef BLADE_HAVE_HDF5

#include <hdf5.h>

struct blade_fbh5_file {
    char* path;
    hid_t file, dataset;
    int64_t spectra, nifs, nchans;
    int64_t chunk_rows; /* spectra per HDF5 chunk */
    bool damaged;       /* an append failed: repair the file at close */
};

/* Room kept for HDF5's metadata (chunk index, object headers) besides the chunks. */
#define METADATA_MARGIN ((int64_t)1 << 18)

bool blade_fbh5_supported(void) { return true; }

/* HDF5 prints its error stack to stderr by default; the core never prints. */
static void silence_hdf5(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static blade_status hdf5_error(const char* path, const char* what)
{
    return blade_fail(BLADE_ERROR_IO, "%s: HDF5 could not %s", path, what);
}

/* A scalar attribute of `type` holding `value`. */
static herr_t scalar_attribute(hid_t target, const char* name, hid_t type, const void* value)
{
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(target, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t status = attribute < 0 ? -1 : H5Awrite(attribute, type, value);
    if (attribute >= 0)
        H5Aclose(attribute);
    H5Sclose(space);
    return status;
}

/* Fixed-length ASCII, as h5py writes Python bytes (readers get numpy.bytes_). */
static herr_t string_attribute(hid_t target, const char* name, const char* value)
{
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(value) > 0 ? strlen(value) : 1);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    const herr_t status = scalar_attribute(target, name, type, value);
    H5Tclose(type);
    return status;
}

static herr_t int_attribute(hid_t target, const char* name, int64_t value)
{
    return scalar_attribute(target, name, H5T_NATIVE_INT64, &value);
}

static herr_t double_attribute(hid_t target, const char* name, double value)
{
    return scalar_attribute(target, name, H5T_NATIVE_DOUBLE, &value);
}

/* DIMENSION_LABELS as HDF5's dimension-scale API writes it: an array of
 * variable-length strings, one per axis. */
static herr_t dimension_labels(hid_t dataset)
{
    const char* labels[3] = { "time", "feed_id", "frequency" };
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    const hsize_t count = 3;
    const hid_t space = H5Screate_simple(1, &count, NULL);
    const hid_t attribute =
        H5Acreate2(dataset, "DIMENSION_LABELS", type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t status = attribute < 0 ? -1 : H5Awrite(attribute, type, labels);
    if (attribute >= 0)
        H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
    return status;
}

static herr_t header_attributes(hid_t d, const filterbank_values* v)
{
    herr_t s = 0;
    s |= int_attribute(d, "telescope_id", v->telescope_id);
    s |= int_attribute(d, "machine_id", v->machine_id);
    s |= int_attribute(d, "data_type", 1);
    if (v->rawdatafile != NULL && v->rawdatafile[0] != '\0')
        s |= string_attribute(d, "rawdatafile", v->rawdatafile);
    s |= string_attribute(d, "source_name", v->source_name);
    if (v->has_position) {
        s |= double_attribute(d, "src_raj", v->ra_hours);
        s |= double_attribute(d, "src_dej", v->dec_degrees);
    }
    if (v->has_horizontal) {
        s |= double_attribute(d, "az_start", v->az_degrees);
        s |= double_attribute(d, "za_start", v->za_degrees);
    }
    s |= double_attribute(d, "tstart", v->tstart_mjd);
    s |= double_attribute(d, "tsamp", v->tsamp);
    s |= int_attribute(d, "nbits", 32);
    s |= double_attribute(d, "fch1", v->fch1_mhz);
    s |= double_attribute(d, "foff", v->foff_mhz);
    s |= int_attribute(d, "nchans", v->nchans);
    s |= int_attribute(d, "nifs", v->nifs);
    s |= int_attribute(d, "nbeams", v->nbeams);
    s |= int_attribute(d, "ibeam", v->ibeam);
    s |= int_attribute(d, "nfpc", v->nfpc);
    s |= dimension_labels(d);
    return s < 0 ? -1 : 0;
}

static void close_handles(blade_fbh5_file* f)
{
    if (f->dataset >= 0)
        H5Dclose(f->dataset);
    if (f->file >= 0)
        H5Fclose(f->file);
    f->dataset = f->file = -1;
}

blade_status blade_fbh5_create(const char* path, const filterbank_values* v, blade_fbh5_file** file)
{
    *file = NULL;
    silence_hdf5();
    blade_fbh5_file* f;
    BLADE_TRY(blade_alloc_object(sizeof *f, "FBH5 file", (void**)&f));
    f->file = f->dataset = -1;
    f->nifs = v->nifs;
    f->nchans = v->nchans;
    f->path = strdup(path);
    if (f->path == NULL) {
        free(f);
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "FBH5 file name");
    }
    bool existed = false;
    blade_status status = blade_output_check(path, "FBH5 writer", &existed);
    if (status != BLADE_OK) {
        free(f->path);
        free(f);
        return status;
    }
    f->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f->file < 0)
        status = blade_fail(BLADE_ERROR_IO, "%s: cannot create the HDF5 file", path);
    if (status == BLADE_OK && (string_attribute(f->file, "CLASS", "FILTERBANK") < 0 ||
                               string_attribute(f->file, "VERSION", "1.0") < 0))
        status = hdf5_error(path, "write the CLASS and VERSION attributes");
    if (status == BLADE_OK) {
        const hsize_t dims[3] = { 0, (hsize_t)v->nifs, (hsize_t)v->nchans };
        const hsize_t most[3] = { H5S_UNLIMITED, (hsize_t)v->nifs, (hsize_t)v->nchans };
        /* About 1 MiB per chunk along time, at least one spectrum. */
        const int64_t spectrum_bytes = v->nifs * v->nchans * 4;
        int64_t rows = (1 << 20) / spectrum_bytes;
        rows = rows < 1 ? 1 : (rows > 1024 ? 1024 : rows);
        f->chunk_rows = rows;
        const hsize_t chunk[3] = { (hsize_t)rows, (hsize_t)v->nifs, (hsize_t)v->nchans };
        const hid_t space = H5Screate_simple(3, dims, most);
        const hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(properties, 3, chunk);
        f->dataset = H5Dcreate2(
            f->file, "data", H5T_IEEE_F32LE, space, H5P_DEFAULT, properties, H5P_DEFAULT);
        H5Pclose(properties);
        H5Sclose(space);
        if (f->dataset < 0)
            status = hdf5_error(path, "create the dataset 'data'");
    }
    if (status == BLADE_OK && header_attributes(f->dataset, v) < 0)
        status = hdf5_error(path, "write the header attributes of 'data'");
    if (status == BLADE_OK && H5Fflush(f->file, H5F_SCOPE_LOCAL) < 0)
        status = hdf5_error(path, "flush the new file");
    if (status != BLADE_OK) {
        /* A file without its dataset or attributes is no FBH5 file: remove it
         * (unless HDF5 could not even create it, or it replaced a file this writer
         * did not make). */
        const bool created = f->file >= 0 && !existed;
        close_handles(f);
        if (created)
            unlink(path);
        free(f->path);
        free(f);
        return status;
    }
    *file = f;
    return BLADE_OK;
}

/*
 * HDF5 that runs out of disk in the middle of a flush leaves a file whose
 * superblock claims more bytes than it has: no reader opens it, and every spectrum
 * in it is lost. So an append first checks that the chunks it will add, and room
 * for metadata, fit on the file system (statvfs) and under the process's file size
 * limit (RLIMIT_FSIZE); if not, it refuses and the file stays as the last flush
 * left it. (Another process filling the disk between the check and the write can
 * still cause the failure; blade_fbh5_close() then repairs what it can.)
 */
static blade_status check_room(const blade_fbh5_file* f, int64_t count)
{
    const int64_t chunk_bytes = f->chunk_rows * f->nifs * f->nchans * 4;
    const int64_t chunks_before = (f->spectra + f->chunk_rows - 1) / f->chunk_rows;
    const int64_t chunks_after = (f->spectra + count + f->chunk_rows - 1) / f->chunk_rows;
    const int64_t needed = (chunks_after - chunks_before) * chunk_bytes + METADATA_MARGIN;
    hsize_t size = 0;
    if (H5Fget_filesize(f->file, &size) < 0)
        return BLADE_OK; /* cannot tell: let the write say */
    struct statvfs disk;
    if (statvfs(f->path, &disk) == 0) {
        const uint64_t free_bytes = (uint64_t)disk.f_bavail * disk.f_frsize;
        if (free_bytes < (uint64_t)needed)
            return blade_fail(BLADE_ERROR_IO,
                              "%s: disk full: %llu bytes free, the next %lld spectra need "
                              "about %lld; the file ends with the %lld spectra before them",
                              f->path,
                              (unsigned long long)free_bytes,
                              (long long)count,
                              (long long)needed,
                              (long long)f->spectra);
    }
    struct rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (uint64_t)size + (uint64_t)needed > (uint64_t)limit.rlim_cur)
        return blade_fail(BLADE_ERROR_IO,
                          "%s: File too large: the file size limit is %llu bytes, the "
                          "next %lld spectra need about %lld more than the %llu written; "
                          "the file ends with the %lld spectra before them",
                          f->path,
                          (unsigned long long)limit.rlim_cur,
                          (long long)count,
                          (long long)needed,
                          (unsigned long long)size,
                          (long long)f->spectra);
    return BLADE_OK;
}

/* Undo the extent of a failed append; remember to repair the file at close. */
static blade_status append_failed(blade_fbh5_file* f, blade_status status)
{
    f->damaged = true;
    const hsize_t size[3] = { (hsize_t)f->spectra, (hsize_t)f->nifs, (hsize_t)f->nchans };
    H5Dset_extent(f->dataset, size);
    return status;
}

blade_status blade_fbh5_append(blade_fbh5_file* f, const float* spectra, int64_t count)
{
    if (f->dataset < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "%s: the FBH5 file is closed", f->path);
    BLADE_TRY(check_room(f, count));
    const hsize_t size[3] = { (hsize_t)(f->spectra + count), (hsize_t)f->nifs, (hsize_t)f->nchans };
    if (H5Dset_extent(f->dataset, size) < 0)
        return append_failed(f, hdf5_error(f->path, "grow the dataset (disk full?)"));
    const hid_t space = H5Dget_space(f->dataset);
    const hsize_t start[3] = { (hsize_t)f->spectra, 0, 0 };
    const hsize_t extent[3] = { (hsize_t)count, (hsize_t)f->nifs, (hsize_t)f->nchans };
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, extent, NULL);
    const hid_t memory = H5Screate_simple(3, extent, NULL);
    const herr_t written =
        H5Dwrite(f->dataset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, spectra);
    H5Sclose(memory);
    H5Sclose(space);
    if (written < 0)
        return append_failed(f,
                             blade_fail(BLADE_ERROR_IO,
                                        "%s: HDF5 could not write spectra %lld .. %lld "
                                        "(disk full?)",
                                        f->path,
                                        (long long)f->spectra,
                                        (long long)(f->spectra + count - 1)));
    if (H5Fflush(f->file, H5F_SCOPE_LOCAL) < 0)
        return append_failed(f, hdf5_error(f->path, "flush (disk full?)"));
    f->spectra += count;
    return BLADE_OK;
}

blade_status blade_fbh5_close(blade_fbh5_file* f)
{
    if (f == NULL)
        return BLADE_OK;
    const bool open = f->file >= 0;
    haddr_t end = HADDR_UNDEF;
    if (open && f->damaged && H5Fget_eoa(f->file, &end) < 0)
        end = HADDR_UNDEF;
    herr_t status = 0;
    if (f->dataset >= 0)
        status |= H5Dclose(f->dataset);
    if (f->file >= 0)
        status |= H5Fclose(f->file);
    f->dataset = f->file = -1;
    blade_status result = BLADE_OK;
    if (open && status < 0)
        result = hdf5_error(f->path, "close the file");
    /* A flush that failed for want of space may have written a superblock that
     * claims space the file never got, and readers refuse a file shorter than
     * that. Extending it (a hole: no disk space needed) makes it open again,
     * with the spectra of the last good flush. */
    struct stat info;
    if (f->damaged && end != HADDR_UNDEF && stat(f->path, &info) == 0 &&
        (haddr_t)info.st_size < end && truncate(f->path, (off_t)end) != 0 && result == BLADE_OK)
        result = blade_fail(BLADE_ERROR_IO,
                            "%s: the file was left shorter than HDF5 expects and could "
                            "not be extended: %s",
                            f->path,
                            strerror(errno));
    free(f->path);
    free(f);
    return result;
}

#else /* no HDF5 */

bool blade_fbh5_supported(void) { return false; }

blade_status
blade_fbh5_create(const char* path, const filterbank_values* values, blade_fbh5_file** file)
{
    (void)values;
    *file = NULL;
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "%s: this build of gr-blade has no HDF5 (install libhdf5-dev and "
                      "rebuild), so it cannot write FBH5; write .fil instead",
                      path);
}

blade_status blade_fbh5_append(blade_fbh5_file* file, const float* spectra, int64_t count)
{
    (void)file, (void)spectra, (void)count;
    return blade_fail(BLADE_ERROR_UNSUPPORTED, "FBH5: built without HDF5");
}

blade_status blade_fbh5_close(blade_fbh5_file* file)
{
    (void)file;
    return BLADE_OK;
}

#endif
