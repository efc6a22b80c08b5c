"""The project's dialects: `from my_project.dialects import lumen`."""
