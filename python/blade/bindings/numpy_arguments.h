/* SPDX-License-Identifier: MIT */
/* numpy <-> C++ conversions shared by the hand-edited phasor, delays and recipe
 * bindings: calibration tables arrive as numpy arrays of any shape, results leave
 * as numpy arrays of their natural shape. */
#ifndef INCLUDED_BLADE_NUMPY_ARGUMENTS_H
#define INCLUDED_BLADE_NUMPY_ARGUMENTS_H

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <complex>
#include <vector>

namespace blade_bindings {

namespace py = pybind11;

/* None -> empty; anything numpy can read as complex64 -> its values in C order. */
inline std::vector<std::complex<float>> flat_complex64(const py::object& values)
{
    if (values.is_none())
        return {};
    const auto array =
        py::array_t<std::complex<float>, py::array::c_style | py::array::forcecast>::ensure(values);
    if (!array)
        throw py::value_error("calibration must be convertible to a complex numpy array");
    return std::vector<std::complex<float>>(array.data(), array.data() + array.size());
}

/* A copy of `values` as a numpy array of `shape` (None for an empty optional). */
template <typename T>
py::object
to_numpy(const std::vector<T>& values, std::vector<py::ssize_t> shape, bool optional = false)
{
    if (optional && values.empty())
        return py::none();
    py::array_t<T> array(shape);
    if (static_cast<size_t>(array.size()) != values.size())
        throw std::runtime_error("internal: array of " + std::to_string(values.size()) +
                                 " values does not fit its shape");
    std::copy(values.begin(), values.end(), array.mutable_data());
    return std::move(array);
}

} // namespace blade_bindings

#endif
