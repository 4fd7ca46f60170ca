"""What two or more of the course's notebooks use, each thing once (grader/course/__init__.py lists it).

It may import the engine's interfaces (grader.engine.protocol), never a notebook's folder.
"""
