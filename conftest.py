"""What every kernel the tests start needs, nbval's included: a font cache of its own, and local sockets.

Font cache: the executed notebooks were built with a private matplotlib cache (grader/engine/build.py); nbval
compares their outputs, stderr included. A machine's cache written by another matplotlib, without the fonts
this one ships, makes the mathtext figures warn on stderr, and nbval would fail on a warning the notebooks do
not have. Set before pytest-xdist starts its workers, so they and their kernels inherit it.

Sockets: nbval starts its kernels over TCP on localhost, on ports jupyter_client picks by binding port 0 and
letting go. Another process (the other xdist worker's kernel, or any client connecting) can take such a port
before the kernel binds it; the kernel then dies at start ("Kernel died before replying to kernel_info", its
stderr sent to /dev/null by nbval). A CI run failed so once. Every other kernel this project starts talks over
ipc (unix sockets at a path of its own); nbval's do too, by the subclass below, since nbval has no option.
"""
import os
import shutil
import tempfile
import uuid

import nbval.kernel
from jupyter_client.manager import KernelManager
from traitlets import default

_made = None


class IpcKernelManager(KernelManager):
    """nbval's kernel manager over ipc, each kernel's sockets at a path no other kernel uses."""

    @default("transport")
    def _default_transport(self):
        return "ipc"

    @default("ip")
    def _default_ip(self):
        return os.path.join(tempfile.gettempdir(), f"nbval-kernel-{uuid.uuid4().hex[:12]}")


def pytest_configure(config):
    global _made
    if "MPLCONFIGDIR" not in os.environ:
        _made = os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(prefix="course-mpl-")
    nbval.kernel.KernelManager = IpcKernelManager  # start_new_kernel looks the name up when it is called


def pytest_unconfigure(config):
    if _made:
        shutil.rmtree(_made, ignore_errors=True)
