"""The course's grader: reference implementations, sealed verdicts, build and grading."""
