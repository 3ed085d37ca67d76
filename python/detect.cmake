# impact — python/detect.cmake: decides whether the Python module `impact` (python/) is built.
#
# IMPACT_BUILD_PYTHON defaults to ON when pybind11's CMake package and the Python headers are
# found, and to OFF under the sanitizers and the fuzzers (a module loaded into an uninstrumented
# interpreter cannot run with ASan). The module is built for the Python the tests run with:
# /usr/bin/python3 when it exists (not whatever `python3` comes first in PATH), unless
# Python_EXECUTABLE is given.
set(impact_python_default OFF)
if(NOT IMPACT_SANITIZE AND NOT IMPACT_FUZZ)
  if(NOT Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python the module `impact` is built for")
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(impact_python_default ON)
  endif()
endif()
option(IMPACT_BUILD_PYTHON "Build the Python module impact (pybind11; python/)" ${impact_python_default})
if(IMPACT_BUILD_PYTHON AND (IMPACT_SANITIZE OR IMPACT_FUZZ))
  message(FATAL_ERROR "IMPACT_BUILD_PYTHON cannot be combined with IMPACT_SANITIZE or IMPACT_FUZZ")
endif()
