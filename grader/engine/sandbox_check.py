"""python -m grader.engine.sandbox_check: can kernels be sandboxed on this machine, and what does it cost?

Prints whether the sandbox works here (grader/engine/sandbox.py) and the kernel start-up time, median of
five, for a plain kernel, a sandboxed one and, as root, one forked from the warm zygote
(grader/engine/forkserver.py). It imports both, which is why it is a module of its own.
"""
import asyncio
import os
import sys
import tempfile

from jupyter_client.manager import AsyncKernelManager

from .forkserver import ForkedKernelManager
from .sandbox import SandboxedKernelManager, sandbox_available

async def _time_start(kernel_manager_class, rounds, **options):
    """Seconds from start_kernel to the first kernel_info reply, per round."""
    import time
    times = []
    for _ in range(rounds):
        km = kernel_manager_class(kernel_name="python3", **options)
        t0 = time.perf_counter()
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            times.append(time.perf_counter() - t0)
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
    return times


def main():
    ok, why = sandbox_available()
    print(f"sandbox available: {ok} ({why})")
    if not ok:
        return 1
    rounds = 5
    med = lambda ts: sorted(ts)[len(ts) // 2]  # noqa: E731
    # The plain kernel over local sockets too (ipc), as every kernel this project starts: over TCP,
    # ipykernel warns that the connection is unencrypted.
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:
        plain = med(asyncio.run(_time_start(AsyncKernelManager, rounds, transport="ipc",
                                            ip=os.path.join(sockets, "kernel"))))
    boxed = med(asyncio.run(_time_start(SandboxedKernelManager, rounds)))
    print(f"kernel start-up to first reply, median of {rounds}: "
          f"plain {plain:.2f} s, sandboxed {boxed:.2f} s (overhead {boxed - plain:+.2f} s)")
    if SandboxedKernelManager().privileged:
        forked = asyncio.run(_time_start(ForkedKernelManager, rounds + 1))[1:]  # the first starts the zygote
        print(f"forked from the warm zygote (grader/engine/forkserver.py): {med(forked):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
