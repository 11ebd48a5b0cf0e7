/* SPDX-License-Identifier: MIT */
/* Configuration values made by keyword in Python, e.g.
 * blade.spectrometer_options(channelizer_rate=1024, integration=16): every keyword
 * sets the attribute of that name (so the attributes' own conversions and defaults
 * apply, and a value type binds its fields once, as attributes), and a keyword that
 * names no attribute is a TypeError that says so. */
#ifndef INCLUDED_BLADE_KEYWORD_INIT_H
#define INCLUDED_BLADE_KEYWORD_INIT_H

#include <pybind11/pybind11.h>

#include <string>

namespace blade_bindings {

namespace py = pybind11;

/* A py::init for class_<T>: T's defaults, then each keyword set as an attribute. */
template <typename T>
auto keyword_init(const char* type_name)
{
    return py::init([type_name](const py::kwargs& keywords) {
        py::object value = py::cast(T());
        for (const auto& item : keywords) {
            const std::string name = py::str(item.first);
            if (name.empty() || name[0] == '_' || !py::hasattr(value, name.c_str()))
                throw py::type_error(std::string(type_name) + " has no field '" + name + "'");
            try {
                value.attr(name.c_str()) = item.second;
            } catch (py::error_already_set& error) {
                if (!error.matches(PyExc_TypeError))
                    throw;
                // pybind11 says "incompatible function arguments ... arg0: int) -> None":
                // name the field and the type it takes instead.
                const std::string what = error.what();
                const auto at = what.find("arg0: ");
                const auto end = what.find(") -> None", at);
                const std::string takes = at == std::string::npos || end == std::string::npos
                                              ? std::string("another type")
                                              : what.substr(at + 6, end - at - 6);
                throw py::type_error(std::string(type_name) + " field '" + name + "' takes " +
                                     takes + ", not " + std::string(py::repr(item.second)));
            }
        }
        return value.cast<T>();
    });
}

} // namespace blade_bindings

#endif
