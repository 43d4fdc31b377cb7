# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "DIST"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs", "external", "lib"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dist_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%dist_src_root", config.dist_src_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%dist_bin", config.dist_tools_dir))
config.substitutions.append(("%dist_lib_dir", os.path.join(config.dist_obj_root, "lib")))
config.substitutions.append(("%mlir_lib_dir", os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")))
config.substitutions.append(("%clang", shutil.which("clang-22") or shutil.which("clang") or "clang"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.dist_tools_dir, config.llvm_tools_dir]
tools = ["dist-opt", "dist-run", "dist-gen", "mlir-opt", "mlir-translate", "FileCheck", "not", "count", "llvm-readelf",
         "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.dist_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Optional engines are features: tests that need one say `REQUIRES: mpi`.
if config.have_mpi and shutil.which("mpirun"):
    config.available_features.add("mpi")
    mpirun = shutil.which("mpirun") + " --oversubscribe"
    if os.getuid() == 0:
        mpirun += " --allow-run-as-root"
    config.substitutions.append(("%mpirun", mpirun))
if config.have_blas:
    config.available_features.add("blas")
if shutil.which("valgrind"):
    config.available_features.add("valgrind")
if config.have_cuda:
    config.available_features.add("cuda-toolkit")
    # dist-lower-to-nvvm's fatbins need ptxas and fatbinary, and its kernels
    # libdevice, which the NVVM target finds through CUDA_HOME.
    llvm_config.with_environment("PATH", os.path.join(config.cuda_root, "bin"),
                                 append_path=True)
    llvm_config.with_environment("CUDA_HOME", config.cuda_root)
if config.have_nccl:
    config.available_features.add("nccl")
# The fake CUDA driver and fake NCCL of test/Runtime (host memory standing in
# for the GPU's, NCCL's calls over MPI).
config.substitutions.append(("%fake_cuda_dir", os.path.join(
    config.dist_obj_root, "test", "Runtime", "fake-cuda")))
config.substitutions.append(("%fake_nccl", os.path.join(
    config.dist_obj_root, "test", "Runtime", "libdist_fake_nccl.so")))
# PyTorch (Debian's python3-torch, only in /usr/bin/python3) is the reference
# of the training tests.
torch_python = "/usr/bin/python3"
if os.path.exists(torch_python) and subprocess.run(
        [torch_python, "-c", "import torch"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", torch_python))
if os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl"):
    config.available_features.add("cuda-gpu")
# NCCL runs one rank per GPU: multi-rank GPU runs need as many devices.
import glob
if len(glob.glob("/dev/nvidia[0-9]*")) >= 2:
    config.available_features.add("cuda-gpus-2")
