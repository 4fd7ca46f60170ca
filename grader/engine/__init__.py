"""The grading engine: how a notebook course is built and graded safely and fast.

The sandbox (sandbox_policy.py, sandbox.py, forkserver.py, cgroup.py), parallel execution (parallel.py),
the sealed-verdict protocol (protocol.py, diagnose.py, nbgrader_plugin.py), intake, grading, the report,
the LMS export, deadlines and the build. Nothing here is about attention: the engine imports no module
of the course, and reaches the course only through courseware.course() (tests/test_layout.py checks).
"""
