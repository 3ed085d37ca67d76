# impact — python/setup.py: pip/setuptools packaging of the Python module `impact`.
#
# The module is built by the repository's CMake (python/CMakeLists.txt, target impact_python), not
# by setuptools: `build_ext` configures the checkout in build/pip (Release, no tests, tool or
# benchmarks) for the installing interpreter and builds the target, then copies the module and
# its stub impact.pyi into the wheel. IMPACT_BUILD_DIR=DIR packages a module already built in DIR
# (e.g. build/release; a relative DIR is taken from the checkout's root) instead, without
# building. Nothing is downloaded.
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("IMPACT_BUILD_DIR")
        if build:
            build = Path(build) if Path(build).is_absolute() else ROOT / build  # relative: to the checkout
        else:
            build = ROOT / "build" / "pip"
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            "-DIMPACT_BUILD_TESTS=OFF", "-DIMPACT_BUILD_APPS=OFF", "-DIMPACT_BUILD_BENCH=OFF",
                            "-DIMPACT_BUILD_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"], check=True)
            subprocess.run(["cmake", "--build", str(build), "--target", "impact_python", "-j",
                            str(os.cpu_count() or 2)], check=True)
        built = sorted((build / "python").glob("impact.*.so"))
        if not built:
            raise RuntimeError(f"no impact module in {build / 'python'}: build the target impact_python there")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)
        shutil.copyfile(ROOT / "python" / "impact.pyi", target.parent / "impact.pyi")


setup(
    name="impact",
    version="0.1.0",
    description="Continuous collision detection: distances, casts, time of impact under rotation, "
                "meshes, levels and worlds, one query or many at once",
    ext_modules=[Extension("impact", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    install_requires=["numpy"],
    python_requires=">=3.8",
    zip_safe=False,
)
