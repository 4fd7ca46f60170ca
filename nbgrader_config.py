"""nbgrader's configuration for this course; nbgrader reads it from the working directory.

Run nbgrader from the repository root (or from a course directory whose own
nbgrader_config.py loads this one, as `python -m grader grade` writes).
"""
from grader.nbgrader_plugin import InjectProbes, SealVerdicts
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, Execute, IgnorePattern,
                                    LimitOutput, SaveAutoGrades)

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "attention-from-scratch"
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"

# A filled-in solution region keeps the placeholder line above it, so every
# student notebook runs from top to bottom before anything is written.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Sealed verdicts: probes go in before Execute, verdicts are made right after it
# and before anything reads a score (SaveAutoGrades).
c.Autograde.autograde_preprocessors = [
    InjectProbes,
    Execute,
    SealVerdicts,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
c.Execute.timeout = 60
